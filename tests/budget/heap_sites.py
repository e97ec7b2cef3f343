"""Reads what tests/budget/alloc_counter.cc counted in a running process, and says who allocated.

  snap = read(path)           the counter's table now: snap.sites is {stack: (calls, bytes)},
                              stacks as tuples of return addresses, innermost first; snap.frees
                              the frees of the whole process; raises if the table is full
  diff = since(before, after) what was allocated and freed between two reads, as a Snapshot
  owners = Owners(pid, binary) classifies a stack while the process runs (its /proc/PID/maps):
      "openssl"  an OpenSSL library (libssl, libcrypto) allocated it, on its own or for a TLS call
      "review"   under gpugate's serving layer (serving::Server::Route and what it calls: the
                 review route, the same work gpugate_review_cost measures)
      "transport" gpugate's other code: the event server, its connections' buffers, timers, the
                 log writer
      "other"    no gpugate or OpenSSL frame in the stack (a library's own thread, or a stack
                 deeper than the counter keeps)
"""
import collections
import os
import struct
import subprocess

Snapshot = collections.namedtuple("Snapshot", "sites frees")

HEADER = struct.Struct("<IIIIQQII")
SITE = struct.Struct("<QQQII")
MAGIC = 0x41434E54


def read(path):
    try:
        data = open(path, "rb").read()
    except OSError as e:
        raise RuntimeError(f"no allocation counts ({e}): was the counter preloaded?") from e
    magic, slots, depth, _, lost, frees, _, _ = HEADER.unpack_from(data, 0)
    if magic != MAGIC:
        raise RuntimeError(f"{path}: not an allocation counter's table")
    if lost:
        raise RuntimeError(f"{path}: {lost} allocations found the table full")
    size = SITE.size + 8 * depth
    sites = {}
    for i in range(slots):
        at = HEADER.size + i * size
        h, calls, nbytes, n, _ = SITE.unpack_from(data, at)
        if h:
            frames = struct.unpack_from(f"<{n}Q", data, at + SITE.size)
            sites[frames] = (calls, nbytes)
    return Snapshot(sites, frees)


def since(before, after):
    out = {}
    for stack, (calls, nbytes) in after.sites.items():
        c0, b0 = before.sites.get(stack, (0, 0))
        if calls > c0:
            out[stack] = (calls - c0, nbytes - b0)
    return Snapshot(out, after.frees - before.frees)


class Owners:
    def __init__(self, pid, binary):
        self.binary = binary
        self.maps = []  # (start, end, path)
        self.base = {}  # path -> where its offset 0 is mapped
        for line in open(f"/proc/{pid}/maps"):
            f = line.split()
            if len(f) < 6:
                continue
            start, end = (int(x, 16) for x in f[0].split("-"))
            self.maps.append((start, end, f[5]))
            if int(f[2], 16) == 0:
                self.base.setdefault(f[5], start)
        self.exe_path = os.path.realpath(binary)
        self.names = {}  # address in the executable -> its functions, inlined ones included

    def path_of(self, addr):
        for start, end, path in self.maps:
            if start <= addr < end:
                return path
        return ""

    def symbolize(self, stacks):
        """Names every address of `stacks` that lies in gpugate's executable (one addr2line)."""
        wanted = sorted({a for s in stacks for a in s if self.path_of(a) == self.exe_path})
        if not wanted:
            return
        base = self.base[self.exe_path]
        # A return address is just past its call: the call is at the address before it.
        rel = [f"{a - base - 1:x}" for a in wanted]
        out = subprocess.run(["addr2line", "-a", "-f", "-C", "-i", "-e", self.binary, *rel],
                             capture_output=True, text=True, check=True).stdout.splitlines()
        # Per address: the address, then a function and its file:line for each inlined level.
        current, pair = None, 0
        for line in out:
            if line.startswith("0x"):
                current, pair = int(line, 16) + base + 1, 0
                self.names[current] = []
            elif current is not None:
                if pair % 2 == 0:
                    self.names[current].append(line)
                pair += 1

    def owner(self, stack):
        seen_gpugate = False
        for addr in stack:
            path = self.path_of(addr)
            name = path.rsplit("/", 1)[-1]
            if name.startswith(("libssl.so", "libcrypto.so")):
                return "openssl"
            if path == self.exe_path:
                seen_gpugate = True
                if any(n.startswith("gpugate::serving::") for n in self.names.get(addr, [])):
                    return "review"
        return "transport" if seen_gpugate else "other"
