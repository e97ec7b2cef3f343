# shellcheck shell=bash
# Helpers for bench/load/run.sh: the servers' lifecycle, wrk, and readings from /proc and ss.
# Sourced, not run. Expects WORK, SCRIPT_DIR, SERVER_CPU, CLIENT_CPU, TIMEOUT, FLOOR, GPUGATE.

CLK_TCK=$(getconf CLK_TCK)
SERVER_PID=""

log() { printf '%s\n' "$*" >&2; }

# core_ticks FIELDS CPU...: the sum of /proc/stat fields (2 user, 3 nice, 4 system, 7 irq,
# 8 softirq, 9 steal) over the given cores, in CLK_TCK units.
core_ticks() {
  local fields=$1
  shift
  awk -v f="$fields" -v cpus=" $* " '
    index(cpus, " " substr($1, 4) " ") && $1 ~ /^cpu[0-9]/ {
      n = split(f, k, ","); for (i = 1; i <= n; i++) sum += $(k[i]) }
    END { print sum + 0 }' /proc/stat
}
# Everything but idle and iowait. Loopback packet work is softirq, and a process's own CPU time
# (/proc/PID/stat) includes the softirq work done on its behalf, so the two compare.
BUSY=2,3,4,7,8,9

# Waits until the server's and the client's cores are nearly idle (under 10% over a second), so
# a compile or a test run elsewhere on the machine does not land in a measurement. Gives up,
# with a warning, after IDLE_MAX_WAIT seconds. WAIT_IDLE=0 skips it.
wait_for_idle() {
  [ "${WAIT_IDLE:-1}" = 1 ] || return 0
  local waited=0 t0 t1 busy
  while :; do
    t0=$(core_ticks $BUSY "$SERVER_CPU" "$CLIENT_CPU")
    sleep 1
    t1=$(core_ticks $BUSY "$SERVER_CPU" "$CLIENT_CPU")
    busy=$(((t1 - t0) * 100 / CLK_TCK / 2))
    [ "$busy" -ge 10 ] || return 0
    if [ "$waited" -ge "${IDLE_MAX_WAIT:-900}" ]; then
      log "warning: CPUs $SERVER_CPU,$CLIENT_CPU still ${busy}% busy after ${waited}s; measuring anyway"
      return 0
    fi
    [ "$waited" -gt 0 ] || log "waiting for CPUs $SERVER_CPU,$CLIENT_CPU to go idle (${busy}% busy)..."
    sleep 4
    waited=$((waited + 5))
  done
}

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# start_server floor|evfloor|evbeast|gpugate|before|gopeer PORT: starts it pinned to SERVER_CPU and
# waits for /healthz. floor is the cpp-httplib floor, evfloor the same fixed reply on gpugate's event
# transport, evbeast the event transport with Boost.Beast's head parser (gpugate_floor_beast),
# gopeer the Go peer (bench/load/gopeer: the same rules in a typical Go webhook).
# gpugate logs one JSON line per review; they go to /dev/null (a real pod writes them to a pipe).
start_server() {
  local which=$1 port=$2
  local args=(--listen "127.0.0.1:$port" --tls-cert "$WORK/certs/tls.crt"
              --tls-key "$WORK/certs/tls.key")
  if [ "$which" = floor ]; then
    taskset -c "$SERVER_CPU" "$FLOOR" "${args[@]}" >/dev/null &
  elif [ "$which" = evfloor ]; then
    taskset -c "$SERVER_CPU" "$FLOOR" "${args[@]}" --transport event >/dev/null &
  elif [ "$which" = evbeast ]; then
    taskset -c "$SERVER_CPU" "$FLOOR_BEAST" "${args[@]}" --transport event >/dev/null &
  elif [ "$which" = gopeer ]; then
    taskset -c "$SERVER_CPU" "$GOPEER_BIN" "${args[@]}" >/dev/null 2>&1 &
  elif [ "$which" = before ]; then
    taskset -c "$SERVER_CPU" "$BASELINE" serve "${args[@]}" >/dev/null 2>&1 &
  else
    taskset -c "$SERVER_CPU" "$GPUGATE" serve "${args[@]}" >/dev/null 2>&1 &
  fi
  SERVER_PID=$!
  for _ in $(seq 100); do
    curl -skf --max-time 1 "https://127.0.0.1:$port/healthz" >/dev/null 2>&1 && return 0
    kill -0 "$SERVER_PID" 2>/dev/null || break
    sleep 0.1
  done
  log "$which did not start on port $port; try it by hand with: ${args[*]}"
  exit 1
}

stop_server() {
  [ -n "$SERVER_PID" ] || return 0
  kill -TERM "$SERVER_PID" 2>/dev/null || true
  for _ in $(seq 50); do
    kill -0 "$SERVER_PID" 2>/dev/null || break
    sleep 0.1
  done
  kill -KILL "$SERVER_PID" 2>/dev/null || true
  wait "$SERVER_PID" 2>/dev/null || true
  SERVER_PID=""
}

process_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }  # utime + stime, all threads
status_kib() { awk -v k="$2:" '$1 == k {print $2}' "/proc/$1/status"; }

# run_wrk URL BODY CONNS DURATION: wrk's RESULT line (post.lua) and client_cpu_s=, wrk's CPU
# seconds. With RATE set, each connection pauses CONNS * 1000 / RATE ms on average (fractions
# kept) before each request, so the whole runs at about RATE requests/s or less (post.lua). Call
# it in a subshell of its own ($(...) or &): `times` then reports wrk as this subshell's children. `times` must not sit in a pipeline, which would fork a fresh process.
run_wrk() {
  local url=$1 body=$2 conns=$3 duration=$4 pause=()
  [ -z "${RATE:-}" ] || pause=("$(awk -v c="$conns" -v r="$RATE" 'BEGIN { printf "%.3f", c * 1000 / r }')")
  taskset -c "$CLIENT_CPU" wrk -t1 -c"$conns" -d"${duration}s" --timeout "$TIMEOUT" --latency \
    -s "$SCRIPT_DIR/post.lua" "$url" -- "$body" "${pause[@]}" | grep '^RESULT' || true
  times >"$WORK/times.$BASHPID"
  awk 'NR == 2 { split($1, u, /[ms]/); split($2, s, /[ms]/)
    printf "client_cpu_s=%.3f\n", u[1] * 60 + u[2] + s[1] * 60 + s[2] }' "$WORK/times.$BASHPID"
  rm -f "$WORK/times.$BASHPID"
}

# served_conns PORT: "open served" for the server's established connections on PORT. wrk
# reports nothing for a connection whose TLS handshake the server never answers (its request is
# never sent, so it never times out), so this is counted from the server's sockets: served means
# it has sent more than a handshake's worth of bytes (4 KiB; a handshake is about 1.5 KiB).
served_conns() {
  ss -Htin state established "( sport = :$1 )" |
    awk '/^[0-9]/ { open++ }
      match($0, /bytes_sent:[0-9]+/) && substr($0, RSTART + 11, RLENGTH - 11) + 0 >= 4096 {
        served++ }
      END { printf "%d %d\n", open, served }'
}

# field "k1=v1 k2=v2" KEY: the value of KEY.
field() { tr ' ' '\n' <<<"$1" | awk -F= -v k="$2" '$1 == k {print $2}'; }
