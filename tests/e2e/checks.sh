# Shared by the shell suites (tests/e2e/run.sh, tests/chart/e2e.sh, tests/image/run.sh): one
# assertion and one retry, counting into the caller's `passed` and `failed`.

# check NAME COMMAND...: one assertion; its output is shown only when it fails.
check() {
  local name=$1 out
  shift
  if out=$("$@" 2>&1); then
    passed=$((passed + 1))
    echo "ok    $name"
  else
    failed=$((failed + 1))
    echo "FAIL  $name"
    sed 's/^/      /' <<<"$out" | tail -n 20
  fi
}

# eventually TENTHS COMMAND...: retries for up to TENTHS tenths of a second.
eventually() {
  local tenths=$1 i
  shift
  for ((i = 0; i < tenths; i++)); do
    "$@" >/dev/null 2>&1 && return 0
    sleep 0.1
  done
  "$@"
}
