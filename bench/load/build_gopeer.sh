#!/usr/bin/env bash
# Builds the Go peer (bench/load/gopeer) into OUT_DIR (default build-bench/gopeer) and prints the
# binary's path. Cached: rebuilt only when a file under bench/load/gopeer is newer than the
# binary. One core, niced (the machine is shared). Needs Go 1.26 or later (PATH or
# /usr/local/go/bin) and the Go module proxy for k8s.io/api on a first build.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
SRC=$ROOT/bench/load/gopeer
OUT=${1:-$ROOT/build-bench/gopeer}
BIN=$OUT/gopeer
GO=$(command -v go || echo /usr/local/go/bin/go)
[ -x "$GO" ] || { echo "build_gopeer.sh: no Go toolchain (PATH or /usr/local/go/bin)" >&2; exit 1; }
if [ ! -x "$BIN" ] || [ -n "$(find "$SRC" -newer "$BIN" -type f -print -quit)" ]; then
  mkdir -p "$OUT"
  (cd "$SRC" && nice env GOMAXPROCS=1 "$GO" build -trimpath -o "$BIN" .) >&2
fi
echo "$BIN"
