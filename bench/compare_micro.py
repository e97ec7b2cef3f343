#!/usr/bin/env python3
"""Side-by-side micro-benchmarks of two gpugate_bench binaries (two commits), in one run.

    bench/compare_micro.py BEFORE AFTER [--filter REGEX] [--rounds N] [--min-time S] [--cpu C]

Runs BEFORE and AFTER alternately, ROUNDS times each (interleaved, so both see the same machine
state), each round one pass of every benchmark matching REGEX, pinned to CPU C. Prints, per
benchmark, the median time of each side and the ratio AFTER / BEFORE (below 1: AFTER is
faster), and the spread (min..max of the per-round ratios of adjacent runs). Absolute times on a
shared machine are noise; the ratios are the result. docs/performance.md shows how it was used.
"""

import argparse
import json
import statistics
import subprocess
import sys


def run(binary, regex, min_time, cpu):
    cmd = [binary, f"--benchmark_filter={regex}", f"--benchmark_min_time={min_time}",
           "--benchmark_format=json"]
    if cpu is not None:
        cmd = ["taskset", "-c", str(cpu)] + cmd
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    times = {}
    for b in json.loads(out)["benchmarks"]:
        if b.get("run_type", "iteration") == "iteration":
            times[b["name"]] = b["real_time"]
    return times


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("before")
    p.add_argument("after")
    p.add_argument("--filter", default="BM_DecodeReview/.*/simdjson")
    p.add_argument("--rounds", type=int, default=8)
    p.add_argument("--min-time", default="0.3")
    p.add_argument("--cpu", type=int, default=0)
    a = p.parse_args()

    before, after = {}, {}
    for r in range(a.rounds):
        for side, binary in ((before, a.before), (after, a.after)):
            for name, t in run(binary, a.filter, a.min_time, a.cpu).items():
                side.setdefault(name, []).append(t)
        print(f"round {r + 1}/{a.rounds} done", file=sys.stderr)

    names = [n for n in before if n in after]
    if not names:
        sys.exit("no benchmark matched in both binaries")
    width = max(len(n) for n in names)
    print(f"{'benchmark':<{width}}  {'before':>10}  {'after':>10}  {'after/before':>12}  spread")
    for n in names:
        mb, ma = statistics.median(before[n]), statistics.median(after[n])
        rounds = [x / y for x, y in zip(after[n], before[n])]
        print(f"{n:<{width}}  {mb:>10.1f}  {ma:>10.1f}  {ma / mb:>12.2f}  "
              f"{min(rounds):.2f}..{max(rounds):.2f}")


if __name__ == "__main__":
    main()
