# Shared by the shell suites (tests/e2e/run.sh, tests/chart/e2e.sh, tests/image/run.sh): one
# assertion and one retry, counting into the caller's `passed` and `failed`.
#
# Bash scopes dynamically: a `local` here is what the command under test sees under that name. So
# these helpers' locals carry a `_checks_` prefix, never a name a suite uses (the image suite's
# container is `$name`).

# check NAME COMMAND...: one assertion; its output is shown only when it fails.
check() {
  local _checks_title=$1 _checks_out
  shift
  if _checks_out=$("$@" 2>&1); then
    passed=$((passed + 1))
    echo "ok    $_checks_title"
  else
    failed=$((failed + 1))
    echo "FAIL  $_checks_title"
    sed 's/^/      /' <<<"$_checks_out" | tail -n 20
  fi
}

# eventually TENTHS COMMAND...: retries for up to TENTHS tenths of a second.
eventually() {
  local _checks_tenths=$1 _checks_i
  shift
  for ((_checks_i = 0; _checks_i < _checks_tenths; _checks_i++)); do
    "$@" >/dev/null 2>&1 && return 0
    sleep 0.1
  done
  "$@"
}
