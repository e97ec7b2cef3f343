#!/usr/bin/env python3
"""The transport attacks of docs/reliability.md ("What abuse costs"), against a running server.

  attacks.py --port PORT --pid PID --attack NAME [--body FILE]

NAME is one of:
  dribble-60k    a 60 KB request head sent one byte per TLS record
  bare-cr-32k    a request line, then 32 KiB of CR bytes, one per TLS record
  probes         4 connections dribbling 60 KB heads (a new one after each) while /healthz is
                 probed 20 times, every 100 ms, each on a new connection as a kubelet does
  large-bodies   64 connections each declaring an 8 MiB body and sending all but its last byte,
                 then one real review (--body) on a new connection
  conformance    a request without Host, one with two, and an HTTP/1.0 POST with
                 `Expect: 100-continue`

Prints one line of key=value pairs: the server's CPU seconds over the attack (utime + stime of
PID, every thread), its peak RSS (VmHWM, KiB), the wall time, and what the attacker saw. Timings
here are measurements, not pass/fail: bench/load/run.sh attacks runs this against gpugate (and
BASELINE) and tabulates it. The server's certificate is not checked.
"""
import argparse
import os
import socket
import ssl
import statistics
import threading
import time

CONTEXT = ssl.create_default_context()
CONTEXT.check_hostname = False
CONTEXT.verify_mode = ssl.CERT_NONE


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime, stime


def peak_rss_kib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    return -1


def connect(port, timeout=30):
    raw = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    raw.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return CONTEXT.wrap_socket(raw)


def dribble(conn, data, stop=None):
    """Sends `data` one byte per TLS record; False when the server ended the connection."""
    for i in range(len(data)):
        if stop is not None and stop.is_set():
            return True
        try:
            conn.send(data[i:i + 1])
        except OSError:
            return False
    return True


def read_answer(conn, timeout):
    """(status, body) of the next answer, or (0, why) when none came within `timeout`."""
    conn.settimeout(timeout)
    got = b""
    try:
        while True:
            end = got.find(b"\r\n\r\n")
            if end >= 0:
                head = got[:end].decode("latin-1")
                length = 0
                for line in head.split("\r\n")[1:]:
                    name, _, value = line.partition(":")
                    if name.strip().lower() == "content-length":
                        length = int(value)
                if len(got) >= end + 4 + length:
                    return int(head.split()[1]), got[end + 4:end + 4 + length].decode("latin-1")
            chunk = conn.recv(65536)
            if not chunk:
                return 0, "closed without an answer"
            got += chunk
    except socket.timeout:
        return 0, "no answer"
    except OSError as e:
        return 0, f"closed without an answer ({e.__class__.__name__})"


def padded_head(path, size):
    head = f"GET {path} HTTP/1.1\r\nHost: gpugate\r\n"
    i = 0
    while len(head) + 1220 + 2 < size:
        head += f"X-Pad-{i}: " + "p" * 1200 + "\r\n"
        i += 1
    return (head + "\r\n").encode()


def attack_dribble_60k(port):
    head = padded_head("/healthz", 60_000)
    conn = connect(port)
    dribble(conn, head)
    status, _ = read_answer(conn, 15)
    return {"head_bytes": len(head), "answer": status}


def attack_bare_cr(port):
    conn = connect(port)
    start = time.monotonic()
    sent_all = dribble(conn, b"GET /healthz HTTP/1.1\r\n" + b"\r" * 32768)
    status, why = read_answer(conn, 15)
    return {"sent_all": int(sent_all), "answer": status or why.replace(" ", "_"),
            "ended_after_s": f"{time.monotonic() - start:.2f}"}


def attack_probes(port):
    stop = threading.Event()
    heads = [0]

    def dribbler():
        while not stop.is_set():
            try:
                conn = connect(port)
                if dribble(conn, padded_head("/healthz", 60_000), stop) and not stop.is_set():
                    read_answer(conn, 15)
                    heads[0] += 1
                conn.close()
            except OSError:
                pass

    threads = [threading.Thread(target=dribbler) for _ in range(4)]
    for t in threads:
        t.start()
    time.sleep(1)  # the dribblers are under way
    waits = []
    failed = 0
    for _ in range(20):
        start = time.monotonic()
        try:
            conn = connect(port, timeout=15)
            conn.sendall(b"GET /healthz HTTP/1.1\r\nHost: gpugate\r\nConnection: close\r\n\r\n")
            status, _ = read_answer(conn, 15)
            conn.close()
        except OSError:
            status = 0
        waits.append(time.monotonic() - start)
        failed += status != 200
        time.sleep(0.1)
    stop.set()
    for t in threads:
        t.join()
    return {"probes": len(waits), "probe_failures": failed,
            "probe_p50_ms": f"{statistics.median(waits) * 1000:.1f}",
            "probe_max_ms": f"{max(waits) * 1000:.1f}", "dribbled_heads_done": heads[0]}


def attack_large_bodies(port, body_file):
    body = 8 << 20
    head = (f"POST /validate HTTP/1.1\r\nHost: gpugate\r\nContent-Type: application/json\r\n"
            f"Content-Length: {body}\r\n\r\n").encode()
    filler = b" " * (body - 1)
    conns, refused = [], 0
    for _ in range(64):
        conn = connect(port)
        try:
            conn.sendall(head)
            conn.sendall(filler)
        except OSError:
            pass
        status, _ = read_answer(conn, 0.2)  # a refusal comes at once; an admitted one waits
        refused += status == 503
        conns.append(conn)
    with open(body_file, "rb") as f:
        review = f.read()
    start = time.monotonic()
    real = connect(port)
    real.sendall(b"POST /validate HTTP/1.1\r\nHost: gpugate\r\nContent-Type: application/json\r\n"
                 + f"Content-Length: {len(review)}\r\n\r\n".encode() + review)
    status, _ = read_answer(real, 15)
    answered = time.monotonic() - start
    for conn in conns:
        conn.close()
    return {"abusers": len(conns), "refused_503": refused, "review_answer": status,
            "review_ms": f"{answered * 1000:.1f}"}


def attack_conformance(port):
    out = {}
    for name, request in [
            ("no_host", b"GET /healthz HTTP/1.1\r\n\r\n"),
            ("two_hosts", b"GET /healthz HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n")]:
        conn = connect(port)
        conn.sendall(request)
        out[name] = read_answer(conn, 5)[0]
    conn = connect(port)
    conn.sendall(b"POST /validate HTTP/1.0\r\nContent-Type: application/json\r\n"
                 b"Expect: 100-continue\r\nContent-Length: 2\r\n\r\n")
    status, _ = read_answer(conn, 1)
    out["http10_expect_interim"] = status or "none"
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--pid", type=int, required=True)
    p.add_argument("--attack", required=True,
                   choices=["dribble-60k", "bare-cr-32k", "probes", "large-bodies",
                            "conformance"])
    p.add_argument("--body", help="a review to POST (large-bodies)")
    a = p.parse_args()
    cpu0, wall0 = cpu_seconds(a.pid), time.monotonic()
    result = {
        "dribble-60k": lambda: attack_dribble_60k(a.port),
        "bare-cr-32k": lambda: attack_bare_cr(a.port),
        "probes": lambda: attack_probes(a.port),
        "large-bodies": lambda: attack_large_bodies(a.port, a.body),
        "conformance": lambda: attack_conformance(a.port),
    }[a.attack]()
    line = {"attack": a.attack, "server_cpu_s": f"{cpu_seconds(a.pid) - cpu0:.2f}",
            "peak_rss_kib": peak_rss_kib(a.pid), "wall_s": f"{time.monotonic() - wall0:.2f}"}
    line.update(result)
    print(" ".join(f"{k}={v}" for k, v in line.items()), flush=True)


if __name__ == "__main__":
    main()
