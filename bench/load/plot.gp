# Throughput and p99 against body size, gpugate against the transport floors (cpp-httplib, and
# gpugate's own event-driven transport with a fixed reply), for /validate at
# 16 connections, from bench/load/run.sh's CSV (docs/performance.md).
#   gnuplot -e "csv='bench/results/load.csv'; out='bench/results/load.png'" bench/load/plot.gp
if (!exists("csv")) csv = 'bench/results/load.csv'
if (!exists("out")) out = 'bench/results/load.png'
if (!exists("route")) route = '/validate'
if (!exists("conns")) conns = 16

set datafile separator ','
set terminal pngcairo size 1200,480 font ',10'
# Columns: 1 server, 2 route, 4 body_bytes, 5 conns, 8 rps, 11 p99_us, 27 round (only the first
# round is plotted). One table per server:
# body KiB, requests/s, p99 ms, in the CSV's order (smallest body first).
wanted(server) = strcol(1) eq server && strcol(2) eq route && column(5) == conns && column(27) == 1
set table $floor
plot csv using (column(4) / 1024.0):8:(column(11) / 1000.0) every ::1 with table if (wanted('floor'))
set table $evfloor
plot csv using (column(4) / 1024.0):8:(column(11) / 1000.0) every ::1 with table if (wanted('evfloor'))
set table $gpugate
plot csv using (column(4) / 1024.0):8:(column(11) / 1000.0) every ::1 with table if (wanted('gpugate'))
unset table
set datafile separator whitespace

set output out
set multiplot layout 1,2 title sprintf('gpugate vs transport floors: POST %s, %d connections, TLS, loopback', route, conns)
set grid
set xlabel 'AdmissionReview body (KiB)'
set logscale x 2
set xrange [2:80]
set xtics (3, 15, 60)
set offsets 0, 0, graph 0.15, 0

set key top right
set ylabel 'requests/s'
set yrange [0:*]
plot $floor using 1:2 with linespoints lw 2 pt 7 title 'floor (cpp-httplib)', \
     $evfloor using 1:2 with linespoints lw 2 pt 9 title 'floor (event transport)', \
     $gpugate using 1:2 with linespoints lw 2 pt 5 title 'gpugate'

set key top left
set ylabel 'p99 latency (ms)'
plot $floor using 1:3 with linespoints lw 2 pt 7 title 'floor (cpp-httplib)', \
     $evfloor using 1:3 with linespoints lw 2 pt 9 title 'floor (event transport)', \
     $gpugate using 1:3 with linespoints lw 2 pt 5 title 'gpugate'

unset multiplot
