#!/usr/bin/env python3
"""Checks what a review costs against tests/budget/budgets.txt: counts, not times.

  budget.py instructions REVIEW_COST_BIN ROUTE BODY   instructions and heap allocations per
      review through the review route (decode, decide, encode, metrics, the log line), from
      callgrind's counts inside gpugate_review_cost's ReviewMany over REVIEWS reviews of the
      body: the same on any machine, however loaded.
  budget.py syscalls GPUGATE_BIN ROUTE BODY   on the real server over TLS, one kept-alive
      connection sending one request at a time, each once the server is idle (every thread
      asleep), after a warm-up: system calls per request (all
      threads, strace -c -f attached for REQUESTS requests) and voluntary context switches per
      request (all threads, /proc/PID/task/*/status, over another REQUESTS requests without
      strace); and of those system calls, `read`, `write` and `epoll_ctl` on their own. With
      one request in flight, sent to an idle server, every count is fixed by the
      code path; only the server's timers (a few wake-ups a second) depend on how long the run
      takes.
  budget.py heap GPUGATE_BIN ROUTE BODY COUNTER_SO   heap allocations per request on the real
      server over TLS, the whole process (OpenSSL's record buffers included), as the syscalls
      pass sends them: COUNTER_SO (tests/budget/alloc_counter.cc) preloaded into `gpugate
      serve` counts every malloc, calloc, realloc and aligned allocation by its call stack, and
      the counts read after the warm-up are subtracted from those read after REQUESTS more
      requests. Prints the count and the bytes asked for, split by who allocated: OpenSSL
      (libssl, libcrypto), the review route (under gpugate's serving layer), gpugate's
      transport (the rest of gpugate: connections, timers, the log writer), other libraries;
      and the frees, which a server that keeps nothing per request matches.

ROUTE is validate or mutate, BODY a case of bench/load/make_bodies.py (3k), or 3k-update (the
same pod relabelled: an UPDATE whose two pod specs are compared). Prints every figure
with its budget; exits 1 when one exceeds it, 2 when it could not measure. Each answer must be
the expected decision (3k: allowed on validate, patched on mutate; 3k-update: allowed on both),
so an error path cannot pass.
"""
import json
import os
import re
import signal
import socket
import ssl
import subprocess
import sys
import tempfile
import time

import heap_sites

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUDGETS = os.path.join(ROOT, "tests", "budget", "budgets.txt")
EXPECTED = {("validate", "3k"): "allowed", ("mutate", "3k"): "patched",
            ("validate", "3k-update"): "allowed", ("mutate", "3k-update"): "allowed"}
REVIEWS = 200     # under callgrind
REQUESTS = 1000   # per pass on the real server


def budget(figure, route, body):
    for line in open(BUDGETS):
        f = line.split()
        if len(f) >= 4 and not line.startswith("#") and f[:3] == [figure, route, body]:
            return float(f[3])
    sys.exit(f"budget.py: no budget for '{figure} {route} {body}' in {BUDGETS}")


def make_bodies(work):
    subprocess.run([sys.executable, os.path.join(ROOT, "bench", "load", "make_bodies.py"), work,
                    os.path.join(ROOT, "tests", "testdata", "k8s-api", "core.v1.Pod.json")],
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    # 3k-update: the same pod relabelled, as a controller's UPDATE carries it: the pod before in
    # oldObject, members in the order the API server wrote them. Nothing to charge or patch, so
    # the review is judged and its two pod specs compared.
    with open(os.path.join(work, "3k.json")) as f:
        review = json.load(f)
    request = review["request"]
    request["operation"] = "UPDATE"
    request["oldObject"] = json.loads(json.dumps(request["object"]))
    request["object"]["metadata"].setdefault("labels", {})["relabelled"] = "yes"
    with open(os.path.join(work, "3k-update.json"), "w") as f:
        json.dump(review, f, separators=(",", ":"))


def check(figure, route, body, value, detail="", per="review"):
    """Prints the figure beside its budget; returns whether it is within it."""
    limit = budget(figure, route, body)
    ok = value <= limit
    print(f"{figure} per {per}, /{route} {body}: {value:.2f} (budget {limit:g})"
          f"{' ' + detail if detail else ''}{'' if ok else '  OVER BUDGET'}")
    return ok


def instructions(tool, route, body, work):
    out = os.path.join(work, "callgrind.out")
    run = subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}",
                          "--collect-atstart=no", "--toggle-collect=*ReviewMany*", tool,
                          os.path.join(work, body + ".json"), route, str(REVIEWS)],
                         capture_output=True, text=True)
    decision = run.stdout.strip()
    if run.returncode != 0 or decision != EXPECTED[(route, body)]:
        sys.exit(f"budget.py: gpugate_review_cost answered '{decision}' (exit {run.returncode}),"
                 f" expected '{EXPECTED[(route, body)]}'\n{run.stderr[-2000:]}")
    annotate = subprocess.run(["callgrind_annotate", out], capture_output=True, text=True,
                              check=True).stdout
    m = re.search(r"^\s*([\d,]+)\s.*PROGRAM TOTALS", annotate, re.M)
    if not m:
        sys.exit("budget.py: no PROGRAM TOTALS in callgrind_annotate's output")
    total = int(m.group(1).replace(",", ""))
    ok = check("instructions", route, body, total / REVIEWS, f"({total:,} over {REVIEWS})")
    mallocs = calls_to(out, {"malloc", "calloc", "realloc"})
    return check("allocations", route, body, mallocs / REVIEWS, "(malloc, calloc, realloc)") and ok


def calls_to(callgrind_out, wanted):
    """Calls to the functions named in `wanted` that callgrind recorded while collecting."""
    names, total, callee = {}, 0, None
    for line in open(callgrind_out):
        m = re.match(r"(c?fn)=\((\d+)\)(?: (.*))?", line)
        if m:
            if m.group(3):
                names[m.group(2)] = m.group(3).strip()
            callee = names.get(m.group(2)) if m.group(1) == "cfn" else None
            continue
        m = re.match(r"calls=(\d+)", line)
        if m and callee in wanted:
            total += int(m.group(1))
        callee = None if m else callee
    return total


class Server:
    """`gpugate serve` without a config file on a free port, its log in a file; `env` adds to
    its environment (not the certificate command's)."""

    def __init__(self, binary, work, env=None):
        subprocess.run([binary, "certs", "--out", os.path.join(work, "certs"), "--host",
                        "127.0.0.1"], check=True, capture_output=True)
        self.log = open(os.path.join(work, "serve.log"), "w+")
        self.proc = subprocess.Popen(
            [binary, "serve", "--listen", "127.0.0.1:0",
             "--tls-cert", os.path.join(work, "certs", "tls.crt"),
             "--tls-key", os.path.join(work, "certs", "tls.key")],
            stdout=subprocess.DEVNULL, stderr=self.log, env={**os.environ, **(env or {})})
        self.port = None
        for _ in range(200):  # the listening line, within 10 s
            m = re.search(r'"msg":"listening".*"port":(\d+)', open(self.log.name).read())
            if m:
                self.port = int(m.group(1))
                break
            if self.proc.poll() is not None:
                break
            time.sleep(0.05)
        if self.port is None:
            self.stop()
            sys.exit("budget.py: gpugate did not start:\n" + open(self.log.name).read()[-2000:])

    def switches(self):
        total = 0
        for tid in os.listdir(f"/proc/{self.proc.pid}/task"):
            try:
                status = open(f"/proc/{self.proc.pid}/task/{tid}/status").read()
            except FileNotFoundError:
                continue  # a thread that ended meanwhile
            total += int(re.search(r"^voluntary_ctxt_switches:\s+(\d+)", status, re.M).group(1))
        return total

    def stop(self):
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


class Connection:
    """One kept-alive TLS connection sending each request in one write, as the API server's
    client does (its buffered writer holds the head and a 3 KB body): one TLS record."""

    def __init__(self, port):
        raw = socket.create_connection(("127.0.0.1", port))
        self.sock = ssl._create_unverified_context().wrap_socket(raw)
        self.pending = b""

    def answer(self, request):
        self.sock.sendall(request)
        while b"\r\n\r\n" not in self.pending:
            self.pending += self.recv()
        head, _, rest = self.pending.partition(b"\r\n\r\n")
        length = int(re.search(rb"(?i)\r\ncontent-length:\s*(\d+)", head).group(1))
        while len(rest) < length:
            rest += self.recv()
        self.pending = rest[length:]
        return int(head.split()[1]), rest[:length]

    def recv(self):
        data = self.sock.recv(65536)
        if not data:
            sys.exit("budget.py: gpugate closed the connection")
        return data

    def close(self):
        self.sock.close()


def wait_idle(pid):
    """Waits until every thread of `pid` sleeps (state S), so each request finds the server idle
    and takes the whole path (its wake-up, its reads, re-arming the connection): then the counts
    do not depend on whether the next request happened to arrive before the server looked."""
    deadline = time.monotonic() + 1
    while time.monotonic() < deadline:
        states = []
        for tid in os.listdir(f"/proc/{pid}/task"):
            try:
                states.append(open(f"/proc/{pid}/task/{tid}/stat").read().rsplit(")", 1)[1][1])
            except (FileNotFoundError, IndexError):
                pass
        if all(st == "S" for st in states):
            return
        time.sleep(0.0001)


def send(conn, route, payload, expected, n, pid):
    request = (f"POST /{route} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json"
               f"\r\nContent-Length: {len(payload)}\r\n\r\n").encode() + payload
    for _ in range(n):
        wait_idle(pid)
        status, answer = conn.answer(request)
        got = ("denied" if b'"allowed":false' in answer
               else "patched" if b'"patch":' in answer else "allowed")
        if status != 200 or got != expected:
            sys.exit(f"budget.py: /{route} answered {status} {got}, expected {expected}")


def strace_summary(path):
    calls = {}
    for line in open(path):
        f = line.split()
        if len(f) >= 5 and f[0][0].isdigit() and not line.startswith("100.00"):
            calls[f[-1]] = int(f[3])
    return calls


def syscalls(binary, route, body, work):
    expected = EXPECTED[(route, body)]
    payload = open(os.path.join(work, body + ".json"), "rb").read()
    server = Server(binary, work)
    try:
        conn = Connection(server.port)
        send(conn, route, payload, expected, 20, server.proc.pid)  # the handshake and first-use work
        before = server.switches()
        send(conn, route, payload, expected, REQUESTS, server.proc.pid)
        switches = (server.switches() - before) / REQUESTS
        out = os.path.join(work, "strace.txt")
        tracer = subprocess.Popen(["strace", "-c", "-f", "-o", out, "-p", str(server.proc.pid)],
                                  stderr=subprocess.PIPE, text=True)
        # "Process N attached with T threads" once it has attached to every thread.
        line = tracer.stderr.readline()
        if "attached" not in line:
            sys.exit(f"budget.py: strace could not attach to gpugate: {line}")
        send(conn, route, payload, expected, REQUESTS, server.proc.pid)
        tracer.send_signal(signal.SIGINT)
        tracer.wait(timeout=30)
        conn.close()
    finally:
        server.stop()
    calls = strace_summary(out)
    per = {k: v / REQUESTS for k, v in calls.items()}
    named = " ".join(f"{k} {per[k]:.2f}" for k in sorted(per, key=per.get, reverse=True)[:6])
    ok = check("syscalls", route, body, sum(per.values()), f"({named})")
    # One read and one write where the request and the answer each fit a TLS record; no
    # epoll_ctl per request (the connection is registered once: transport/event_conn.h).
    for call in ("read", "write", "epoll_ctl"):
        ok = check(call, route, body, per.get(call, 0.0), "(system calls)") and ok
    return check("switches", route, body, switches, "(voluntary, all threads)") and ok


def heap(binary, route, body, work, counter):
    expected = EXPECTED[(route, body)]
    payload = open(os.path.join(work, body + ".json"), "rb").read()
    table = os.path.join(work, "alloc-counts")
    server = Server(binary, work, {"LD_PRELOAD": counter, "GPUGATE_ALLOC_COUNTS": table})
    try:
        conn = Connection(server.port)
        send(conn, route, payload, expected, 20, server.proc.pid)  # the handshake and first-use work
        before = heap_sites.read(table)
        send(conn, route, payload, expected, REQUESTS, server.proc.pid)
        wait_idle(server.proc.pid)
        grown = heap_sites.since(before, heap_sites.read(table))
        owners = heap_sites.Owners(server.proc.pid, binary)
        owners.symbolize(grown.sites)
        conn.close()
    except RuntimeError as e:
        sys.exit(f"budget.py: {e}")
    finally:
        server.stop()
    calls, nbytes = {}, {}
    for stack, (c, b) in grown.sites.items():
        who = owners.owner(stack)
        calls[who] = calls.get(who, 0) + c
        nbytes[who] = nbytes.get(who, 0) + b
    split = ", ".join(f"{who} {calls[who] / REQUESTS:.2f} ({nbytes[who] / REQUESTS:,.0f} B)"
                      for who in ("openssl", "transport", "review", "other") if who in calls)
    ok = check("server_allocations", route, body, sum(calls.values()) / REQUESTS,
               f"(whole process: {split}; frees {grown.frees / REQUESTS:.2f})", per="request")
    return check("server_alloc_bytes", route, body, sum(nbytes.values()) / REQUESTS,
                 "(bytes asked for)", per="request") and ok


def main(argv):
    if (argv[1:2] == ["heap"] and len(argv) != 6) or \
            (argv[1:2] != ["heap"] and len(argv) != 5) or \
            argv[1] not in ("instructions", "syscalls", "heap"):
        sys.exit(__doc__)
    with tempfile.TemporaryDirectory(prefix="gpugate-budget-") as work:
        make_bodies(work)
        if argv[1] == "heap":
            return 0 if heap(argv[2], argv[3], argv[4], work, argv[5]) else 1
        run = instructions if argv[1] == "instructions" else syscalls
        return 0 if run(argv[2], argv[3], argv[4], work) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
