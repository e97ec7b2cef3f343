#!/usr/bin/env bash
# A Release build optimised with a profile of real reviews (docs/decisions.md, "Release builds
# optimised with a profile of real reviews"), in three steps in one build directory:
#   1. configure with GPUGATE_PGO=generate and build an instrumented `gpugate`;
#   2. train: run it on a free loopback port with a throwaway certificate, send it the golden
#      AdmissionReviews of tests/testdata (tools/pgo_train.py), stop it with SIGTERM, which writes
#      the profile;
#   3. configure with GPUGATE_PGO=use and build TARGETS (default: gpugate) with that profile.
#
# Usage: tools/pgo-build.sh BUILD_DIR [TARGET...]; extra cmake arguments in CMAKE_ARGS (an
# array-like string, e.g. "-DGPUGATE_BUILD_BENCH=ON -DGPUGATE_BUILD_TESTS=OFF"); JOBS (2).
# Needs python3 (`tools/install-deps.sh pgo`). Warnings are not errors here: the test build
# (`make test`, CI) is where they are; profile-driven inlining makes GCC 12 warn falsely.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:?usage: pgo-build.sh BUILD_DIR [TARGET...]}
shift
TARGETS=("${@:-gpugate}")
JOBS=${JOBS:-2}
read -r -a EXTRA <<<"${CMAKE_ARGS:-}"
PROFILE=$(cd "$ROOT" && mkdir -p "$BUILD" && cd "$BUILD" && pwd)/pgo-profile

log() { echo "pgo-build: $*" >&2; }

rm -rf "$PROFILE"
cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DGPUGATE_WERROR=OFF \
  -DGPUGATE_PGO=generate -DGPUGATE_PGO_DIR="$PROFILE" "${EXTRA[@]}" >/dev/null
cmake --build "$BUILD" -j"$JOBS" --target gpugate

work=$(mktemp -d /tmp/gpugate-pgo.XXXXXX)
server=""
cleanup() {
  [ -n "$server" ] && kill -KILL "$server" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
"$BUILD/webhook/gpugate" certs --out "$work" --host 127.0.0.1 >/dev/null
"$BUILD/webhook/gpugate" serve --listen 127.0.0.1:0 --tls-cert "$work/tls.crt" \
  --tls-key "$work/tls.key" >"$work/serve.log" 2>&1 &
server=$!
port=""
for _ in $(seq 100); do
  port=$(sed -n 's/.*"msg":"listening".*"port":\([0-9]*\).*/\1/p' "$work/serve.log")
  [ -n "$port" ] && break
  kill -0 "$server" 2>/dev/null || break
  sleep 0.1
done
[ -n "$port" ] || { log "the instrumented gpugate did not start:"; cat "$work/serve.log" >&2; exit 1; }
python3 "$ROOT/tools/pgo_train.py" "$port" "$ROOT/tests/testdata/validate" \
  "$ROOT/tests/testdata/mutate" >&2
kill -TERM "$server"
wait "$server" || { log "the instrumented gpugate did not stop cleanly"; exit 1; }
server=""
[ -n "$(find "$PROFILE" -name '*.gcda' -print -quit 2>/dev/null)" ] ||
  { log "the training run wrote no profile under $PROFILE"; exit 1; }
log "profile of $(find "$PROFILE" -name '*.gcda' | wc -l) objects in $PROFILE"

cmake -S "$ROOT" -B "$BUILD" -DGPUGATE_PGO=use >/dev/null
cmake --build "$BUILD" -j"$JOBS" --target "${TARGETS[@]}"
