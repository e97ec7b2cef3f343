#!/usr/bin/env python3
"""The training run of a profile-guided build (tools/pgo-build.sh): sends AdmissionReviews to a
running `gpugate serve` over TLS, on several kept-alive connections at once, so the profile holds
what real traffic runs: the transport, decoding, every rule, the quota ledger, JSON Patch.

The reviews are the golden requests of tests/testdata/{validate,mutate} (Pods, workloads with
pod templates, UPDATEs, DELETEs, refusals), each sent to both /validate and /mutate; not the load
benchmark's bodies, so the benchmark measures a build that was not trained on it.

Usage: pgo_train.py PORT DIR... [--rounds N] [--connections N]
Exits 1 when a connection fails or no review was answered with 200.
"""
import argparse
import http.client
import pathlib
import ssl
import sys
import threading


def reviews(dirs):
    bodies = []
    for d in dirs:
        bodies += [p.read_bytes() for p in sorted(pathlib.Path(d).glob("*.request.json"))]
    return bodies


def train(port, bodies, rounds, index, connections, counts, lock):
    ctx = ssl.create_default_context()
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE  # the training server's throwaway certificate
    conn = http.client.HTTPSConnection("127.0.0.1", port, context=ctx, timeout=30)
    mine = bodies[index::connections] or bodies
    seen = {}
    for _ in range(rounds):
        for body in mine:
            for route in ("/validate", "/mutate"):
                conn.request("POST", route, body, {"Content-Type": "application/json"})
                res = conn.getresponse()
                res.read()
                seen[res.status] = seen.get(res.status, 0) + 1
    conn.close()
    with lock:
        for status, n in seen.items():
            counts[status] = counts.get(status, 0) + n


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("port", type=int)
    ap.add_argument("dirs", nargs="+")
    ap.add_argument("--rounds", type=int, default=20)
    ap.add_argument("--connections", type=int, default=8)
    args = ap.parse_args()
    bodies = reviews(args.dirs)
    if not bodies:
        sys.exit("pgo_train: no *.request.json in " + " ".join(args.dirs))
    counts, lock, failures = {}, threading.Lock(), []

    def run(i):
        try:
            train(args.port, bodies, args.rounds, i, args.connections, counts, lock)
        except Exception as e:  # a training run that cannot talk to the server trains nothing
            failures.append(repr(e))

    threads = [threading.Thread(target=run, args=(i,)) for i in range(args.connections)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    print("pgo_train: %d reviews, answers by status %s" % (len(bodies), dict(sorted(counts.items()))))
    if failures:
        sys.exit("pgo_train: " + failures[0])
    if counts.get(200, 0) == 0:
        sys.exit("pgo_train: no review was answered with 200")


if __name__ == "__main__":
    main()
