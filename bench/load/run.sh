#!/usr/bin/env bash
# Load benchmarks: gpugate against the transport floors (bench/load/floor_server.cc) under wrk,
# over TLS on loopback, server and client each pinned to a CPU of their own. docs/performance.md
# explains the method and what the numbers mean.
#
#   bench/load/run.sh [load]   ROUNDS rounds (3); each runs every case in CASES x ROUTES x
#                              CONNS server by server: the cpp-httplib floor, the event-
#                              transport floor (evfloor), gpugate, BASELINE's gpugate (before)
#                              if set, the Go peer (gopeer) unless GOPEER=0; then the medians
#                              and gpugate's ratios (summarize.py); writes
#                              bench/results/load.{csv,txt,png}               (make bench-load)
#   RATE=N bench/load/run.sh   the same at about N requests/s in all (each connection pauses
#                              between requests) instead of flat out, for latency at a set
#                              load; writes bench/results/load-rateN.{csv,txt,png}
#   bench/load/run.sh attacks  the transport attacks of docs/reliability.md (attacks.py), each
#                              against a fresh gpugate (and BASELINE's, if set) on CPUs
#                              ATTACK_CPUS (0,1): the server's CPU, peak RSS, what the attacker
#                              saw; writes bench/results/attacks.txt        (make bench-attacks)
#   bench/load/run.sh soak     gpugate alone under 256 connections for DURATION (300 s),
#                              RSS and open fds every 5 s into bench/results/soak.{csv,txt}
#                              (make soak-load); SOAK_RATE=half first measures the peak for
#                              10 s, then soaks at half of it (make soak: 600 s)
#
# Environment: DURATION (s per run; 10, soak 300), CASES ("3k 15k 60k"), ROUTES ("/validate
# /mutate"), CONNS ("16 256"), TIMEOUT (wrk's per-request timeout, 2s), SERVER_CPU (0),
# CLIENT_CPU (1), SOAK_CASE (3k), SOAK_ROUTE (/validate), SOAK_CONNS (256), JOBS (2),
# WAIT_IDLE (1: wait for idle CPUs before building and before each run), MAX_OTHER (10: a run
# in which other processes took more than this % of the two cores is repeated, up to RETRIES,
# 3, times), RATE (requests/s in all; unset: flat out), STATE (what was measured, for the
# report; default: the git commit), BASELINE (another gpugate binary, e.g. an earlier commit's
# Release build: each case then also runs it, as server "before", right after gpugate, so a
# change is measured side by side in one run; its ratio column is to the same floor), EVBEAST
# (1: each case also runs the event floor with Boost.Beast's head parser, gpugate_floor_beast,
# as server "evbeast" right after evfloor; its r/ev is to evfloor; needs libboost1.81-dev:
# bash tools/install-deps.sh beast, which make bench-load EVBEAST=1 runs), ROUNDS (3: how many
# times every case runs on every server; medians and per-round ratios are reported), GOPEER (1:
# each case also runs the Go peer, bench/load/gopeer, as server "gopeer", built by
# bench/load/build_gopeer.sh; 0 leaves it out, as does a machine without Go), PGO (1: gpugate
# and the floors are built as the image is, optimised with a profile of the golden reviews by
# tools/pgo-build.sh, which trains and builds twice; 0: a plain Release build).
#
# Comparing two commits: git worktree add /tmp/before <commit>; build its gpugate with
# tools/pgo-build.sh /tmp/before/build-bench (a commit without that script: cmake -S /tmp/before
# -B /tmp/before/build-bench -DCMAKE_BUILD_TYPE=Release -DGPUGATE_BUILD_TESTS=OFF, then
# cmake --build); then BASELINE=/tmp/before/build-bench/webhook/gpugate make bench-load.
# Needs wrk, taskset, ss, gnuplot, curl, python3: `bash tools/install-deps.sh bench`.
set -euo pipefail
shopt -s inherit_errexit

MODE=${1:-load}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=$ROOT/build-bench
WORK=$BUILD/load
RESULTS=$ROOT/bench/results
SCRIPT_DIR=$ROOT/bench/load
FIXTURE=${FIXTURE:-$ROOT/tests/testdata/k8s-api/core.v1.Pod.json}
SERVER_CPU=${SERVER_CPU:-0}
CLIENT_CPU=${CLIENT_CPU:-1}
TIMEOUT=${TIMEOUT:-2s}
GPUGATE=$BUILD/webhook/gpugate
FLOOR=$BUILD/bench/gpugate_floor
FLOOR_BEAST=$BUILD/bench/gpugate_floor_beast
# shellcheck source=bench/load/lib.sh
source "$SCRIPT_DIR/lib.sh"
trap stop_server EXIT

prepare() {
  for tool in wrk taskset ss curl python3; do
    command -v $tool >/dev/null || { log "$tool missing: bash tools/install-deps.sh bench"; exit 1; }
  done
  wait_for_idle
  local targets=(gpugate gpugate_floor)
  [ "${EVBEAST:-}" != 1 ] || targets+=(gpugate_floor_beast)
  if [ "${PGO:-1}" = 1 ]; then  # as the image is built: tools/pgo-build.sh
    CMAKE_ARGS="-DGPUGATE_BUILD_BENCH=ON -DGPUGATE_BUILD_TESTS=OFF" JOBS="${JOBS:-2}" \
      bash "$ROOT/tools/pgo-build.sh" "$BUILD" "${targets[@]}" >&2
  else
    cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DGPUGATE_BUILD_BENCH=ON \
      -DGPUGATE_BUILD_TESTS=OFF -DGPUGATE_PGO= >/dev/null
    cmake --build "$BUILD" -j"${JOBS:-2}" --target "${targets[@]}"
  fi
  if [ "$MODE" = load ] && [ "${GOPEER:-1}" = 1 ]; then
    GOPEER_BIN=$(bash "$SCRIPT_DIR/build_gopeer.sh" "$BUILD/gopeer") ||
      log "no Go peer (bench/load/build_gopeer.sh failed, or no Go 1.26): running without it"
  fi
  mkdir -p "$WORK" "$RESULTS"
  [ -f "$WORK/certs/tls.crt" ] ||
    "$GPUGATE" certs --out "$WORK/certs" --host 127.0.0.1 >/dev/null 2>&1
  python3 "$SCRIPT_DIR/make_bodies.py" "$WORK" "$FIXTURE" >&2
  [ -z "${GOPEER_BIN:-}" ] || check_gopeer
}

# The Go peer must answer every body as gpugate does (check_gopeer.py), or comparing their
# costs compares different work.
check_gopeer() {
  local gport pport gpid
  gport=$(free_port)
  start_server gpugate "$gport"
  gpid=$SERVER_PID
  pport=$(free_port)
  start_server gopeer "$pport"
  python3 "$SCRIPT_DIR/check_gopeer.py" "https://127.0.0.1:$gport" "https://127.0.0.1:$pport" \
    "$WORK"/{3k,15k,60k}.json >&2 || { SERVER_PID=$gpid stop_server; exit 1; }
  stop_server
  SERVER_PID=$gpid
  stop_server
}

CSV_HEADER="server,route,body,body_bytes,conns,duration_s,requests,rps,p50_us,p90_us,p99_us,\
p999_us,max_us,server_cpu_us_per_req,server_cpu_pct,client_cpu_pct,server_core_pct,\
client_core_pct,other_cpu_pct,peak_rss_kib,conns_served,socket_errors,timeouts,status_errors,\
rps_ratio,rps_ratio_event,round"

# measure floor|evfloor|evbeast|gpugate|before|gopeer ROUTE CASE CONNS FLOOR_RPS EVFLOOR_RPS: one run; leaves its CSV
# row in ROW and the share of the two cores other processes took during it in OTHER.
ROW=""
OTHER=0
ROUND=1
measure() {
  local which=$1 route=$2 case=$3 conns=$4 floor_rps=$5 evfloor_rps=${6:-0}
  local port body out sampler
  port=$(free_port)
  body=$WORK/$case.json
  start_server "$which" "$port"
  local pt0 st0 ct0 ot0 pt1 st1 ct1 ot1
  pt0=$(process_ticks "$SERVER_PID")
  st0=$(core_ticks $BUSY "$SERVER_CPU")
  ct0=$(core_ticks $BUSY "$CLIENT_CPU")
  ot0=$(core_ticks $BUSY "$SERVER_CPU" "$CLIENT_CPU")
  (sleep "$(awk -v d="$DURATION" 'BEGIN {print d * 0.8}')"
   served_conns "$port" >"$WORK/served") &
  sampler=$!
  out=$(run_wrk "https://127.0.0.1:$port$route" "$body" "$conns" "$DURATION" | tr '\n' ' ')
  wait "$sampler"
  pt1=$(process_ticks "$SERVER_PID")
  st1=$(core_ticks $BUSY "$SERVER_CPU")
  ct1=$(core_ticks $BUSY "$CLIENT_CPU")
  ot1=$(core_ticks $BUSY "$SERVER_CPU" "$CLIENT_CPU")
  out+=" peak_rss_kib=$(status_kib "$SERVER_PID" VmHWM) served=$(cut -d' ' -f2 "$WORK/served")"
  out+=" server_ticks=$((pt1 - pt0)) server_core=$((st1 - st0)) client_core=$((ct1 - ct0))"
  out+=" both_cores=$((ot1 - ot0))"
  stop_server
  [ -n "$(field "$out" requests)" ] || { log "wrk gave no result: $out"; exit 1; }
  ROW=$(format_row "$which,$route,$case,$(stat -c %s "$body"),$conns" "$floor_rps" "$out" \
    "$evfloor_rps"),$ROUND
  OTHER=$(cut -d, -f19 <<<"$ROW")
}

# format_row "server,route,case,bytes,conns" FLOOR_RPS "k=v ..." EVFLOOR_RPS: the CSV row.
format_row() {
  local f=$3
  awk -v head="$1" -v frps="$2" -v erps="${4:-0}" -v hz="$CLK_TCK" \
      -v req="$(field "$f" requests)" -v dur="$(field "$f" duration_us)" \
      -v p50="$(field "$f" p50_us)" -v p90="$(field "$f" p90_us)" -v p99="$(field "$f" p99_us)" \
      -v p999="$(field "$f" p999_us)" -v max="$(field "$f" max_us)" \
      -v srv="$(field "$f" server_ticks)" -v cli="$(field "$f" client_cpu_s)" \
      -v score="$(field "$f" server_core)" -v ccore="$(field "$f" client_core)" \
      -v both="$(field "$f" both_cores)" -v rss="$(field "$f" peak_rss_kib)" \
      -v served="$(field "$f" served)" -v conn="$(field "$f" connect_errors)" \
      -v rd="$(field "$f" read_errors)" -v wr="$(field "$f" write_errors)" \
      -v tmo="$(field "$f" timeouts)" -v st="$(field "$f" status_errors)" \
      'BEGIN {
        secs = dur / 1e6; rps = req / secs; core = hz * secs / 100  # ticks in 1% of a core
        split(head, h, ",")
        ratio = (h[1] != "floor" && frps > 0) ? sprintf("%.2f", rps / frps) : ""
        ratio_ev = ((h[1] == "gpugate" || h[1] == "before" || h[1] == "evbeast" || h[1] == "gopeer") && erps > 0) ? sprintf("%.2f", rps / erps) : ""
        other = (both - srv - cli * hz) / core / 2  # % of the two cores
        printf "%s,%.1f,%d,%.0f,%d,%d,%d,%d,%d,%.1f,%.0f,%.0f,%.0f,%.0f,%.0f,%d,%d,%d,%d,%d,%s,%s\n",
          head, secs, req, rps, p50, p90, p99, p999, max, (req > 0 ? srv / hz * 1e6 / req : 0),
          srv / core, cli * hz / core, score / core, ccore / core, (other > 0 ? other : 0),
          rss, served, conn + rd + wr, tmo, st, ratio, ratio_ev }'
}

# measure_clean ...: measure, repeated (after waiting for idle CPUs) while other processes took
# more than MAX_OTHER % of the cores; the last attempt's row is kept either way.
DISTURBED=()
measure_clean() {
  local attempt
  for attempt in $(seq "${RETRIES:-3}"); do
    wait_for_idle
    measure "$@"
    [ "$OTHER" -gt "${MAX_OTHER:-10}" ] || return 0
    log "other processes took ${OTHER}% of the cores during this run; again ($attempt)"
  done
  DISTURBED+=("$1 $2 $3 c$4: other processes took ${OTHER}% of the cores")
}

# Columns by number: 1 server 2 route 3 body 5 conns 8 rps 9 p50 11 p99 12 p99.9 14 cpu/req
# 17 server core 18 client core 19 other 20 peak RSS 21 served 22 socket errors 23 timeouts
# 24 non-2xx 25 ratio to the cpp-httplib floor 26 ratio to the event-transport floor 27 round.
print_table() {
  awk -F, 'NR == 1 {
      printf "%-5s %-7s %-9s %-4s %5s %6s %7s %6s %6s %7s %8s %4s %4s %4s %7s %7s %7s %6s %5s %5s\n",
        "round", "server", "route", "body", "conns", "served", "req/s", "p50ms", "p99ms",
        "p999ms", "cpu us/r", "srv%", "cli%", "oth%", "RSS MiB", "sockerr", "timeout", "non2xx",
        "ratio", "r/ev"
      next }
    { printf "%-5s %-7s %-9s %-4s %5d %6d %7.0f %6.2f %6.2f %7.2f %8.1f %4.0f %4.0f %4.0f %7.1f %7d %7d %6d %5s %5s\n",
        $27, $1, $2, $3, $5, $21, $8, $9 / 1000, $11 / 1000, $12 / 1000, $14, $17, $18, $19,
        $20 / 1024, $22, $23, $24, $25, $26 }' "$1"
}

# STATE describes what was measured when the tree is not a git checkout (or to say more).
describe_state() {
  if [ -n "${STATE:-}" ]; then
    echo "state: $STATE"
  elif git -C "$ROOT" rev-parse HEAD >/dev/null 2>&1; then
    echo "state: commit $(git -C "$ROOT" rev-parse --short HEAD)$(
      [ -z "$(git -C "$ROOT" status --porcelain -- webhook bench)" ] || echo ' + uncommitted changes')"
  fi
  echo "date: $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) CPUs:$(
    awk -F': ' '/model name/ {print " " $2; exit}' /proc/cpuinfo)"
  [ "$MODE" = attacks ] ||
    echo "server on CPU $SERVER_CPU, wrk -t1 on CPU $CLIENT_CPU, ${DURATION}s per run, timeout" \
      "$TIMEOUT, $(if [ -n "${RATE:-}" ]; then echo "at most $RATE requests/s"; else echo "flat out"; fi)"
}

# One round: every case, server by server (floor first: the others' ratio columns are to it).
run_round() {
  local csv=$1 floor_rps evfloor_rps which
  for case in ${CASES:-3k 15k 60k}; do
    for route in ${ROUTES:-/validate /mutate}; do
      for n in ${CONNS:-16 256}; do
        log "== round $ROUND: $case $route c$n: floor"
        measure_clean floor "$route" "$case" "$n" 0
        echo "$ROW" >>"$csv"
        floor_rps=$(cut -d, -f8 <<<"$ROW")
        log "== round $ROUND: $case $route c$n: evfloor"
        measure_clean evfloor "$route" "$case" "$n" "$floor_rps"
        echo "$ROW" >>"$csv"
        evfloor_rps=$(cut -d, -f8 <<<"$ROW")
        for which in $([ "${EVBEAST:-}" != 1 ] || echo evbeast) gpugate \
            $([ -z "${BASELINE:-}" ] || echo before) $([ -z "${GOPEER_BIN:-}" ] || echo gopeer); do
          log "== round $ROUND: $case $route c$n: $which"
          measure_clean "$which" "$route" "$case" "$n" "$floor_rps" "$evfloor_rps"
          echo "$ROW" >>"$csv"
        done
      done
    done
  done
}

run_load() {
  DURATION=${DURATION:-10}
  local name=load${RATE:+-rate$RATE}
  local csv=$RESULTS/$name.csv
  echo "$CSV_HEADER" >"$csv"
  for ROUND in $(seq "${ROUNDS:-3}"); do run_round "$csv"; done
  {
    describe_state
    echo "${ROUNDS:-3} rounds, each running every case server by server; medians at the end"
    echo
    print_table "$csv"
    for run in "${DISTURBED[@]}"; do echo "disturbed: $run"; done
    echo
    python3 "$SCRIPT_DIR/summarize.py" "$csv"
  } | tee "$RESULTS/$name.txt"
  if command -v gnuplot >/dev/null; then
    # The plot is of one connection count: 16 when it was run, else the first one run.
    local plot_conns=16
    [[ " ${CONNS:-16 256} " == *" 16 "* ]] || plot_conns=${CONNS%% *}
    gnuplot -e "csv='$csv'; out='$RESULTS/$name.png'; conns=$plot_conns" "$SCRIPT_DIR/plot.gp"
    log "wrote $csv, $RESULTS/$name.txt, $RESULTS/$name.png"
  else
    log "gnuplot missing, no plot; wrote $csv, $RESULTS/$name.txt"
  fi
}

run_soak() {
  DURATION=${DURATION:-300}
  local case=${SOAK_CASE:-3k} route=${SOAK_ROUTE:-/validate} conns=${SOAK_CONNS:-256}
  local csv=$RESULTS/soak.csv port idle wrk_pid t=0 peak
  wait_for_idle
  port=$(free_port)
  start_server gpugate "$port"
  if [ "${SOAK_RATE:-}" = half ]; then
    # Half the measured peak: a 10 s flat-out run on the same server first.
    peak=$(RATE='' run_wrk "https://127.0.0.1:$port$route" "$WORK/$case.json" "$conns" 10 |
      tr ' ' '\n' | awk -F= '$1 == "requests" { r = $2 } $1 == "duration_us" { d = $2 }
        END { if (d > 0) printf "%d", r / (d / 1e6) }')
    RATE=$((peak / 2))
    log "soak: peak $peak req/s flat out; soaking at $RATE req/s"
  fi
  idle=$(status_kib "$SERVER_PID" VmRSS)
  run_wrk "https://127.0.0.1:$port$route" "$WORK/$case.json" "$conns" "$DURATION" \
    >"$WORK/soak.wrk" &
  wrk_pid=$!
  echo "t_s,rss_kib,hwm_kib,threads,conns_open,conns_served,fds" >"$csv"
  while sleep 5 && kill -0 "$wrk_pid" 2>/dev/null; do
    t=$((t + 5))
    echo "$t,$(status_kib "$SERVER_PID" VmRSS),$(status_kib "$SERVER_PID" VmHWM),$(
      status_kib "$SERVER_PID" Threads),$(served_conns "$port" | tr ' ' ','),$(
      find "/proc/$SERVER_PID/fd" -mindepth 1 -maxdepth 1 | wc -l)" >>"$csv"
  done
  wait "$wrk_pid"
  stop_server
  {
    describe_state
    echo "soak: gpugate $route $case, $conns connections, ${RATE:-flat out}${RATE:+ req/s};" \
      "RSS idle before load: $idle KiB"
    tr ' ' '\n' <"$WORK/soak.wrk" |
      grep -E '^(requests|p99_us|connect_errors|read_errors|write_errors|timeouts|status_errors)=' |
      tr '\n' ' '
    echo
    # The start is the first sample under load. Growth that matters comes after warm-up (pools,
    # allocator arenas, TLS buffers filled), so the sample at a fifth of the run is shown too.
    awk -F, 'NR > 1 { t[NR] = $1; r[NR] = $2; s[NR] = $6; f[NR] = $7; n = NR }
      END {
        w = 2 + int((n - 1) / 5)
        printf "RSS start (t=%ds) %d KiB, after warm-up (t=%ds) %d KiB, end (t=%ds) %d KiB\n",
          t[2], r[2], t[w], r[w], t[n], r[n]
        printf "growth start->end %+d KiB, warm-up->end %+d KiB; connections served at the end: %d\n",
          r[n] - r[2], r[n] - r[w], s[n]
        printf "open fds start %d, after warm-up %d, end %d\n", f[2], f[w], f[n] }' "$csv"
  } | tee "$RESULTS/soak.txt"
}

# Each attack against a fresh server, so its peak RSS is the attack's; gpugate, then BASELINE.
run_attacks() {
  local servers=(gpugate) port attack which
  [ -z "${BASELINE:-}" ] || servers+=(before)
  {
    describe_state
    echo "servers on CPUs ${ATTACK_CPUS:-0,1} (one serving thread each), attacks.py unpinned"
    for attack in dribble-60k bare-cr-32k probes large-bodies conformance; do
      for which in "${servers[@]}"; do
        wait_for_idle
        port=$(free_port)
        SERVER_CPU=${ATTACK_CPUS:-0,1} start_server "$which" "$port"
        python3 "$SCRIPT_DIR/attacks.py" --port "$port" --pid "$SERVER_PID" --attack "$attack" \
          --body "$WORK/3k.json" | sed "s/^/server=$which /"
        stop_server
      done
    done
  } | tee "$RESULTS/attacks.txt"
}

prepare
case "$MODE" in
  load) run_load ;;
  soak) run_soak ;;
  attacks) run_attacks ;;
  *) log "usage: bench/load/run.sh [load|soak|attacks]"; exit 2 ;;
esac
