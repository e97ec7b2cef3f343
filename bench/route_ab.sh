#!/usr/bin/env bash
# The review route's CPU time of two builds of gpugate_review_cost, alternated: each round runs
# A then B for COUNT reviews of BODY on ROUTE and reads each run's user CPU time (GNU time's %U);
# prints every run, both medians and B's median ÷ A's. No TLS, HTTP or system calls: the decode,
# the decision, the answer, the metrics and the log line, as tests/budget/review_cost.cc does
# them (docs/performance.md, "The keys, the walk and the quantities").
#
#   bench/route_ab.sh BODY ROUTE COUNT ROUNDS A_REVIEW_COST B_REVIEW_COST
#   bench/route_ab.sh /tmp/bodies/3k.json validate 150000 7 \
#     /tmp/before/build/tests/gpugate_review_cost build/tests/gpugate_review_cost
#
# Bodies: python3 bench/load/make_bodies.py DIR tests/testdata/k8s-api/core.v1.Pod.json.
# Needs GNU time (/usr/bin/time, Debian's `time` package) and python3.
set -euo pipefail
[ $# -eq 6 ] || { sed -n '2,13p' "$0" >&2; exit 2; }
body=$1 route=$2 count=$3 rounds=$4 a=$5 b=$6
[ -x /usr/bin/time ] || { echo "route_ab.sh: /usr/bin/time missing (apt-get install time)" >&2; exit 1; }
for bin in "$a" "$b"; do [ -x "$bin" ] || { echo "route_ab.sh: not an executable: $bin" >&2; exit 1; }; done
for round in $(seq "$rounds"); do
  for side in A B; do
    bin=$a
    [ "$side" = A ] || bin=$b
    seconds=$({ /usr/bin/time -f %U "$bin" "$body" "$route" "$count" >/dev/null; } 2>&1 | tail -1)
    echo "round $round $side $seconds"
  done
done | python3 -c '
import statistics, sys
runs = {"A": [], "B": []}
for line in sys.stdin:
    print(line, end="")
    _, _, side, seconds = line.split()
    runs[side].append(float(seconds))
a, b = statistics.median(runs["A"]), statistics.median(runs["B"])
print(f"median user seconds: A {a:.3f}, B {b:.3f}; B / A {b / a:.3f}")'
