#!/usr/bin/env python3
"""The medians of bench/load/run.sh's rounds, and gpugate's ratios to the other servers.

  summarize.py LOAD_CSV

Reads the CSV run.sh writes (one row per run, the round in the last column) and prints, per case
(route, body, connections):

  - each server's median over the rounds of requests/s, CPU microseconds per request (the
    server's threads' utime + stime over the run / requests) and wrk's share of its core;
  - gpugate's ratios to `before` (BASELINE), `gopeer` (the Go peer) and `evfloor` (the event
    floor), each computed within a round (the two servers ran minutes apart at most, one after
    the other) and then the median over the rounds, with every round's figure beside it:
      by throughput: gpugate req/s / other req/s           (above 1: gpugate serves more)
      by CPU:        other CPU us/req / gpugate CPU us/req (above 1: gpugate spends less)

Ratios inside a round are what make a comparison hold on a machine that drifts by +-30% over
minutes: both servers of a ratio see the same drift. docs/performance.md, "Rounds and medians".
"""
import csv
import statistics
import sys
from collections import defaultdict

OTHERS = ("before", "gopeer", "evfloor")


def load(path):
    runs = defaultdict(dict)  # (route, body, conns) -> {(server, round): row}
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            key = (row["route"], row["body"], int(row["conns"]))
            runs[key][(row["server"], int(row["round"]))] = row
    return runs


def median(values):
    return statistics.median(values) if values else None


def fmt(value, spec):
    return "-" if value is None else format(value, spec)


def ratios(rows, other):
    """Per-round (throughput, cpu) ratios of gpugate to `other`, in round order."""
    out = []
    for rnd in sorted({r for (_, r) in rows}):
        g, o = rows.get(("gpugate", rnd)), rows.get((other, rnd))
        if not g or not o:
            continue
        g_rps, o_rps = float(g["rps"]), float(o["rps"])
        g_cpu, o_cpu = float(g["server_cpu_us_per_req"]), float(o["server_cpu_us_per_req"])
        out.append((g_rps / o_rps if o_rps else None, o_cpu / g_cpu if g_cpu else None))
    return out


def main(path):
    runs = load(path)
    print("medians over rounds (req/s, server CPU us per request, wrk's CPU % of its core):")
    print(f"{'route':<9} {'body':<4} {'conns':>5} {'server':<8} {'rounds':>6} {'req/s':>8} "
          f"{'cpu us/r':>8} {'wrk cpu%':>8}")
    for (route, body, conns), rows in runs.items():
        for server in dict.fromkeys(s for (s, _) in rows):
            mine = [row for (s, _), row in rows.items() if s == server]
            print(f"{route:<9} {body:<4} {conns:>5} {server:<8} {len(mine):>6} "
                  f"{fmt(median([float(r['rps']) for r in mine]), '8.0f')} "
                  f"{fmt(median([float(r['server_cpu_us_per_req']) for r in mine]), '8.1f')} "
                  f"{fmt(median([float(r['client_cpu_pct']) for r in mine]), '8.0f')}")
    print()
    print("gpugate / other, within each round, median [each round]:"
          " by throughput (req/s) and by CPU (other's us/req / gpugate's)")
    for (route, body, conns), rows in runs.items():
        for other in OTHERS:
            per_round = ratios(rows, other)
            if not per_round:
                continue
            tput = [t for t, _ in per_round if t is not None]
            cpu = [c for _, c in per_round if c is not None]
            print(f"{route:<9} {body:<4} c{conns:<4} vs {other:<8} "
                  f"throughput {fmt(median(tput), '5.2f')} "
                  f"[{' '.join(format(t, '.2f') for t in tput)}]  "
                  f"cpu {fmt(median(cpu), '5.2f')} [{' '.join(format(c, '.2f') for c in cpu)}]")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: summarize.py LOAD_CSV")
    main(sys.argv[1])
