#!/usr/bin/env bash
# The tools `make test` runs tests with that a plain Debian bookworm lacks: the CEL evaluator of
# the matchConditions test (Debian's nodejs and npm, then @bufbuild/cel from npm:
# tools/install-cel.sh) and kubectl with kustomize for the manifest tests (tools/install-kubectl.sh).
# Each is installed when missing, so a fresh machine runs every test. Where one cannot be had (no
# package registry in reach), this says so and carries on: the tests that need it skip themselves,
# naming what is missing.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bash "$root/tools/install-cel.sh" ||
  echo "install-test-tools: the CEL evaluator could not be installed; the matchConditions test will be skipped"
bash "$root/tools/install-kubectl.sh" >/dev/null ||
  echo "install-test-tools: kubectl could not be installed; the manifest tests will be skipped"
exit 0
