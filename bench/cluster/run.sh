#!/usr/bin/env bash
# The cluster benchmark (docs/performance.md, "Cluster mode on big clusters"): this tree's gpugate
# and BASE_REV's (default 6e1b633, before paged lists), both built Release, each syncing one
# replica from a stand-in API server holding PODS pods; EVENTS pod changes through the watch.
# Writes bench/results/cluster.{md,csv}.
#   PODS=10000,30000 EVENTS=5000 BASE_REV=6e1b633 bash bench/cluster/run.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
JOBS=${JOBS:-2}
PODS=${PODS:-10000,30000,100000}
EVENTS=${EVENTS:-10000}
BASE_REV=${BASE_REV:-6e1b633}
BASE_DIR=${BASE_DIR:-/tmp/gpugate-base-$BASE_REV}

cmake -S . -B build-bench -DCMAKE_BUILD_TYPE=Release -DGPUGATE_BUILD_BENCH=ON \
  -DGPUGATE_BUILD_TESTS=OFF >/dev/null
cmake --build build-bench -j"$JOBS" --target gpugate gpugate_cluster_bench

# The base, from git, built the same way in a directory of its own.
if [ ! -x "$BASE_DIR/build/webhook/gpugate" ]; then
  rm -rf "$BASE_DIR/src" && mkdir -p "$BASE_DIR/src"
  git archive "$BASE_REV" | tar -x -C "$BASE_DIR/src"
  cmake -S "$BASE_DIR/src" -B "$BASE_DIR/build" -DCMAKE_BUILD_TYPE=Release \
    -DGPUGATE_BUILD_TESTS=OFF >/dev/null
  cmake --build "$BASE_DIR/build" -j"$JOBS" --target gpugate
fi

mkdir -p bench/results
build-bench/bench/gpugate_cluster_bench \
  --replica "$BASE_REV=$BASE_DIR/build/webhook/gpugate" \
  --replica "this-tree=build-bench/webhook/gpugate" \
  --pods "$PODS" --events "$EVENTS" --pod bench/cluster/pod.json \
  --csv bench/results/cluster.csv | tee bench/results/cluster.md
