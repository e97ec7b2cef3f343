#!/usr/bin/env python3
"""Checks that the Go peer answers the bench bodies as gpugate does, so a load comparison
between them compares the same work: for every body and route, the same allowed/denied
decision with the same message and, on /mutate, the same JSON Patch operations (op, path and
value).

  check_gopeer.py GPUGATE_URL GOPEER_URL BODY.json...

Both servers must be running (bench/load/run.sh starts them); URLs like https://127.0.0.1:PORT.
Prints one line per body and route; exits 1 on the first disagreement, naming both answers.
"""
import base64
import json
import ssl
import sys
import urllib.request

CONTEXT = ssl._create_unverified_context()  # the bench's self-signed certificate


def answer(base, route, body):
    req = urllib.request.Request(base + route, data=body, method="POST",
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, context=CONTEXT, timeout=10) as resp:
        r = json.load(resp)["response"]
    patch = json.loads(base64.b64decode(r["patch"])) if r.get("patch") else []
    return {"allowed": r["allowed"], "message": r.get("status", {}).get("message", ""),
            "patch": patch}


def main(gpugate, gopeer, bodies):
    for path in bodies:
        body = open(path, "rb").read()
        for route in ("/validate", "/mutate"):
            ours, peer = answer(gpugate, route, body), answer(gopeer, route, body)
            if ours != peer:
                sys.exit(f"{path} {route}: gpugate answered {json.dumps(ours)}, "
                         f"the Go peer {json.dumps(peer)}")
            print(f"{path} {route}: both {'allowed' if ours['allowed'] else 'denied'}, "
                  f"{len(ours['patch'])} patch operations")


if __name__ == "__main__":
    if len(sys.argv) < 4:
        sys.exit("usage: check_gopeer.py GPUGATE_URL GOPEER_URL BODY.json...")
    main(sys.argv[1], sys.argv[2], sys.argv[3:])
