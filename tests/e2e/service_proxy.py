#!/usr/bin/env python3
"""The e2e suite's stand-in for a Service: a TCP proxy on 127.0.0.1:PORT that hands each new
connection to the next of the backend ports in turn (as kube-proxy spreads connections over a
Service's endpoints), skipping a backend that refuses it. TLS passes through untouched.

usage: service_proxy.py PORT BACKEND_PORT...
"""
import asyncio
import itertools
import sys


async def pipe(reader, writer):
    try:
        while data := await reader.read(65536):
            writer.write(data)
            await writer.drain()
    except (ConnectionError, asyncio.CancelledError):
        pass
    finally:
        writer.close()


async def main(port, backends):
    turn = itertools.cycle(backends)

    async def serve(client_reader, client_writer):
        for _ in backends:
            try:
                reader, writer = await asyncio.open_connection("127.0.0.1", next(turn))
                break
            except OSError:
                continue
        else:
            client_writer.close()
            return
        await asyncio.gather(pipe(client_reader, writer), pipe(reader, client_writer))

    server = await asyncio.start_server(serve, "127.0.0.1", port)
    print(f"service_proxy: 127.0.0.1:{port} -> {backends}", flush=True)
    async with server:
        await server.serve_forever()


if __name__ == "__main__":
    asyncio.run(main(int(sys.argv[1]), [int(p) for p in sys.argv[2:]]))
