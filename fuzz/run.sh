#!/usr/bin/env bash
# Runs the libFuzzer targets built in BUILD_DIR (see fuzz/README.md).
#
#   run.sh BUILD_DIR SECONDS [TARGET...]   fuzz each target (all by default) for SECONDS, growing
#                                          its corpus in BUILD_DIR/fuzz/corpus/TARGET; crashes go to
#                                          BUILD_DIR/crashes/TARGET/
#   run.sh --smoke BUILD_DIR TARGET         the seeds, then FUZZ_SMOKE_SECONDS (10) of fuzzing from a
#                                          fresh corpus (`make test`, through ctest)
#
# Exits non-zero when any target crashed (a sanitizer report, a failed invariant, a timeout or an
# out-of-memory), after running the others. Each run's log is BUILD_DIR/fuzz/logs/TARGET.log.
set -uo pipefail

smoke=0
if [ "${1:-}" = "--smoke" ]; then
  smoke=1
  shift
fi
build=$(cd "$1" && pwd)
shift
if [ "$smoke" -eq 1 ]; then
  seconds=${FUZZ_SMOKE_SECONDS:-10}
else
  seconds=$1
  shift
fi
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(quantity review pod_spec handler http_head)
src=$(cd "$(dirname "$0")" && pwd)

symbolizer=$(command -v llvm-symbolizer-16 || ls /usr/lib/llvm-16/bin/llvm-symbolizer 2>/dev/null ||
  command -v llvm-symbolizer || true)
export ASAN_OPTIONS="abort_on_error=1:detect_leaks=1:${ASAN_OPTIONS:-}"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:${UBSAN_OPTIONS:-}"
[ -n "$symbolizer" ] && export ASAN_SYMBOLIZER_PATH="$symbolizer"

failed=()
for t in "${targets[@]}"; do
  bin="$build/fuzz/${t}_fuzzer"
  seeds="$build/fuzz/seeds/$t"
  case "$t" in
    quantity) dict="$src/quantity.dict" ;;
    http_head) dict="$src/http.dict" ;;
    *) dict="$src/k8s.dict" ;;
  esac
  crashes="$build/crashes/$t"
  logs="$build/fuzz/logs"
  if [ "$smoke" -eq 1 ]; then
    corpus="$build/fuzz/smoke/$t"
    rm -rf "$corpus"
    log="$logs/$t.smoke.log"
  else
    corpus="$build/fuzz/corpus/$t"
    log="$logs/$t.log"
  fi
  mkdir -p "$corpus" "$crashes" "$logs"
  start=$SECONDS
  # Inputs are small JSON documents, quantities or request heads: one taking 10 s or 2 GiB is a
  # bug too.
  "$bin" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -dict="$dict" \
    -artifact_prefix="$crashes/" -print_final_stats=1 "$corpus" "$seeds" >"$log" 2>&1
  rc=$?
  elapsed=$((SECONDS - start))
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  cov=$(grep -oE 'cov: [0-9]+ ft: [0-9]+ corp: [0-9]+/[0-9]+[a-zA-Z]*' "$log" | tail -1)
  echo "fuzz $t: ${elapsed}s, ${execs:-?} executions (${speed:-?}/s), $cov, $(ls "$corpus" | wc -l) files in $corpus"
  if [ $rc -ne 0 ]; then
    failed+=("$t")
    echo "fuzz $t: FAILED (exit $rc); log $log, inputs in $crashes/:" >&2
    grep -E 'ERROR:|runtime error|invariant failed|Test unit written' "$log" | head -20 >&2
  fi
done
[ ${#failed[@]} -eq 0 ] || { echo "fuzz: crashes in ${failed[*]}" >&2; exit 1; }
