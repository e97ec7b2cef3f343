#!/usr/bin/env bash
# CPU per request of several server binaries on one case, interleaved: every round runs each
# binary once, in the order given, for SECONDS under wrk (server on SERVER_CPU, wrk on
# CLIENT_CPU, as bench/load/run.sh does), and reads the server's CPU time from /proc/PID/stat.
# Prints each run, then per binary the median CPU µs per request and the median, over rounds, of
# the first binary's CPU per request ÷ its own (with a floor first: "÷ floor", higher is better).
# For quick comparisons of builds of one source (a plain and a profile-guided build, the image's
# binary); make bench-load is the full benchmark.
#
#   bench/load/cpu_ab.sh ROUTE CONNS SECONDS ROUNDS BINARY...
#   bench/load/cpu_ab.sh validate 16 4 5 build-bench/bench/gpugate_floor build-bench/webhook/gpugate
#
# A binary whose name contains "floor" runs as the event-transport floor (--transport event);
# any other as `gpugate serve`. BODY (default: the 3 KB review of bench/load/make_bodies.py).
# Needs wrk, taskset, curl and python3 (bash tools/install-deps.sh bench).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
SCRIPT_DIR=$ROOT/bench/load
[ $# -ge 5 ] || { sed -n '2,16p' "$0" >&2; exit 2; }
route=$1 conns=$2 seconds=$3 rounds=$4
shift 4
binaries=("$@")
SERVER_CPU=${SERVER_CPU:-0}
CLIENT_CPU=${CLIENT_CPU:-1}
WORK=$(mktemp -d /tmp/gpugate-cpu-ab.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
for tool in wrk taskset curl python3; do
  command -v $tool >/dev/null || { echo "$tool missing: bash tools/install-deps.sh bench" >&2; exit 1; }
done
for b in "${binaries[@]}"; do [ -x "$b" ] || { echo "not an executable: $b" >&2; exit 1; }; done

gpugate=""
for b in "${binaries[@]}"; do [[ $(basename "$b") == *floor* ]] || { gpugate=$b; break; }; done
[ -n "$gpugate" ] || { echo "needs at least one gpugate binary (for its certificate)" >&2; exit 1; }
"$gpugate" certs --out "$WORK/certs" --host 127.0.0.1 >/dev/null
body=${BODY:-$WORK/bodies/3k.json}
if [ -z "${BODY:-}" ]; then
  python3 "$SCRIPT_DIR/make_bodies.py" "$WORK/bodies" "$ROOT/tests/testdata/k8s-api/core.v1.Pod.json" >/dev/null
fi

ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
clk=$(getconf CLK_TCK)
results=$WORK/results
: >"$results"
for round in $(seq "$rounds"); do
  for i in "${!binaries[@]}"; do
    b=${binaries[$i]}
    port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    args=(--listen "127.0.0.1:$port" --tls-cert "$WORK/certs/tls.crt" --tls-key "$WORK/certs/tls.key")
    if [[ $(basename "$b") == *floor* ]]; then
      taskset -c "$SERVER_CPU" "$b" "${args[@]}" --transport event >/dev/null 2>&1 &
    else
      taskset -c "$SERVER_CPU" "$b" serve "${args[@]}" >/dev/null 2>&1 &
    fi
    pid=$!
    for _ in $(seq 100); do
      curl -skf --max-time 1 "https://127.0.0.1:$port/healthz" >/dev/null 2>&1 && break
      sleep 0.1
    done
    t0=$(ticks "$pid")
    out=$(taskset -c "$CLIENT_CPU" wrk -t1 -c"$conns" -d"${seconds}s" -s "$SCRIPT_DIR/post.lua" \
      "https://127.0.0.1:$port/$route" -- "$body" | grep '^RESULT' || true)
    t1=$(ticks "$pid")
    kill -TERM "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
    requests=$(sed -n 's/.*requests=\([0-9]*\).*/\1/p' <<<"$out")
    [ -n "$requests" ] && [ "$requests" -gt 0 ] || { echo "no answers from $b" >&2; exit 1; }
    us=$(python3 -c "print(f'{($t1 - $t0) / $clk * 1e6 / $requests:.1f}')")
    printf '%s %s %s\n' "$round" "$i" "$us" >>"$results"
    printf 'round %s  %-40s %8s requests  %6s CPU us/req\n' "$round" "$b" "$requests" "$us"
  done
done

python3 - "$results" "${binaries[@]}" <<'EOF'
import statistics
import sys
runs = [line.split() for line in open(sys.argv[1])]
names = sys.argv[2:]
cpu = {}
for rnd, i, us in runs:
    cpu.setdefault(int(i), {})[int(rnd)] = float(us)
print(f"\nmedians over {len(cpu[0])} rounds (CPU us per request; first ÷ this, per round)")
for i, name in enumerate(names):
    ratios = [cpu[0][r] / cpu[i][r] for r in cpu[i]]
    print(f"{name:40s} {statistics.median(cpu[i].values()):7.1f}   {statistics.median(ratios):.2f} "
          f"[{' '.join(f'{x:.2f}' for x in ratios)}]")
EOF
