#!/usr/bin/env bash
# System calls per request: each gpugate binary given runs `serve` under `strace -c -f` while wrk
# sends a fixed-length run of one review body over 16 kept-alive connections; the calls strace
# counted (start-up and shutdown included, a few hundred) are divided by the requests wrk saw.
# Counts, not times: what a change does here does not drift with the machine's load. Binaries
# run one after another per case, so a comparison is side by side.
#
#   bench/load/syscalls.sh BIN [BIN...]
#
# Environment: ROUTES ("/validate /mutate"), CASE (3k), CONNS (16), DURATION (5 s), CONFIG (a
# gpugate.yaml for every server; default none: local mode, memory-only ledger), WORK
# (/tmp/gpugate-syscalls: certificates and bodies). Needs strace, wrk, curl, python3.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
WORK=${WORK:-/tmp/gpugate-syscalls}
CASE=${CASE:-3k}
CONNS=${CONNS:-16}
DURATION=${DURATION:-5}
ROUTES=${ROUTES:-/validate /mutate}
PORT=${PORT:-18443}
mkdir -p "$WORK"
[ -f "$WORK/$CASE.json" ] ||
  python3 "$ROOT/bench/load/make_bodies.py" "$WORK" "$ROOT/tests/testdata/k8s-api/core.v1.Pod.json" >&2
[ -f "$WORK/certs/tls.crt" ] || "$1" certs --out "$WORK/certs" --host 127.0.0.1 >/dev/null 2>&1

# run BIN ROUTE: prints "requests read write epoll_ctl epoll_wait futex other total" per request.
run() {
  local bin=$1 route=$2 args=()
  args=(serve --listen "127.0.0.1:$PORT" --tls-cert "$WORK/certs/tls.crt"
        --tls-key "$WORK/certs/tls.key")
  [ -z "${CONFIG:-}" ] || args+=(--config "$CONFIG")
  strace -c -f -o "$WORK/strace.txt" "$bin" "${args[@]}" 2>/dev/null &
  local pid=$!
  for _ in $(seq 100); do
    curl -skf --max-time 1 "https://127.0.0.1:$PORT/healthz" >/dev/null 2>&1 && break
    sleep 0.1
  done
  local requests
  requests=$(wrk -t1 -c"$CONNS" -d"${DURATION}s" -s "$ROOT/bench/load/post.lua" \
    "https://127.0.0.1:$PORT$route" -- "$WORK/$CASE.json" |
    sed -n 's/^ *\([0-9]*\) requests in.*/\1/p')
  # SIGTERM to the server, not to strace (which would detach and leave it running).
  kill -TERM "$(pgrep -P "$pid")"
  wait "$pid" || true
  python3 - "$WORK/strace.txt" "$requests" <<'PY'
import sys
calls = {}
for line in open(sys.argv[1]):
    f = line.split()
    if len(f) >= 5 and f[0][0].isdigit() and not line.startswith("100.00"):
        calls[f[-1]] = int(f[3])
n = int(sys.argv[2])
named = ["read", "write", "epoll_ctl", "epoll_wait", "futex"]
other = sum(v for k, v in calls.items() if k not in named)
row = [calls.get(k, 0) / n for k in named] + [other / n, sum(calls.values()) / n]
print(n, " ".join(f"{v:.2f}" for v in row))
PY
}

echo "binary route requests read write epoll_ctl epoll_wait futex other total (per request)"
for route in $ROUTES; do
  for bin in "$@"; do
    echo "$bin $route $(run "$bin" "$route")"
  done
done
