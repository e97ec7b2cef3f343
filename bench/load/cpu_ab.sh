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
# A binary whose name contains "floor" runs as the event-transport floor (--transport event),
# one whose name contains "gopeer" as the Go peer (build-bench/gopeer/gopeer,
# bench/load/build_gopeer.sh); any other as `gpugate serve`. BODY (default: the 3 KB review of
# bench/load/make_bodies.py).
# RATE=N: every binary at the same offered load, about N requests/s in all (bench/load/lib.sh),
# instead of flat out: flat out, the slower server also pays for waking wrk, which waits on it.
# Needs wrk, taskset, curl and python3 (bash tools/install-deps.sh bench).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
SCRIPT_DIR=$ROOT/bench/load
[ $# -ge 5 ] || { sed -n '2,19p' "$0" >&2; exit 2; }
route=$1 conns=$2 seconds=$3 rounds=$4
shift 4
binaries=("$@")
SERVER_CPU=${SERVER_CPU:-0}
CLIENT_CPU=${CLIENT_CPU:-1}
TIMEOUT=${TIMEOUT:-2s}
WORK=$(mktemp -d /tmp/gpugate-cpu-ab.XXXXXX)
# shellcheck source=bench/load/lib.sh
source "$SCRIPT_DIR/lib.sh"
trap 'stop_server; rm -rf "$WORK"' EXIT
for tool in wrk taskset curl python3; do
  command -v $tool >/dev/null || { log "$tool missing: bash tools/install-deps.sh bench"; exit 1; }
done
for b in "${binaries[@]}"; do [ -x "$b" ] || { log "not an executable: $b"; exit 1; }; done
is_floor() { [[ $(basename "$1") == *floor* ]]; }
is_gopeer() { [[ $(basename "$1") == *gopeer* ]]; }

GPUGATE=""
for b in "${binaries[@]}"; do is_floor "$b" || is_gopeer "$b" || { GPUGATE=$b; break; }; done
[ -n "$GPUGATE" ] || { log "needs at least one gpugate binary (for its certificate)"; exit 1; }
"$GPUGATE" certs --out "$WORK/certs" --host 127.0.0.1 >/dev/null
body=${BODY:-$WORK/3k.json}
[ -n "${BODY:-}" ] ||
  python3 "$SCRIPT_DIR/make_bodies.py" "$WORK" "$ROOT/tests/testdata/k8s-api/core.v1.Pod.json" >/dev/null

results=$WORK/results
: >"$results"
for round in $(seq "$rounds"); do
  for i in "${!binaries[@]}"; do
    b=${binaries[$i]} port=$(free_port)
    if is_floor "$b"; then
      FLOOR=$b start_server evfloor "$port"
    elif is_gopeer "$b"; then
      GOPEER_BIN=$b start_server gopeer "$port"
    else
      GPUGATE=$b start_server gpugate "$port"
    fi
    t0=$(process_ticks "$SERVER_PID")
    out=$(run_wrk "https://127.0.0.1:$port/$route" "$body" "$conns" "$seconds")
    t1=$(process_ticks "$SERVER_PID")
    stop_server
    requests=$(sed -n 's/.*requests=\([0-9]*\).*/\1/p' <<<"$out")
    [ -n "$requests" ] && [ "$requests" -gt 0 ] || { log "no answers from $b"; exit 1; }
    us=$(python3 -c "print(f'{($t1 - $t0) / $CLK_TCK * 1e6 / $requests:.1f}')")
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
