#!/usr/bin/env bash
# Installs the CEL evaluator that tests/integration/match_conditions_test.cc runs the webhooks'
# matchConditions with: @bufbuild/cel (Apache-2.0; passes the CEL conformance suite) and its
# dependencies, at the versions and integrity hashes of tests/cel/package-lock.json, into
# .tools/cel/node_modules with `npm ci`. Node and npm are Debian's (install-deps.sh group node),
# so the only source outside Debian is the npm registry, and npm checks every package against
# the lockfile's hash.
#
# Usage: install-cel.sh             installs node and npm first when either is missing
#        install-cel.sh --if-npm    (make test) does nothing but say so when node or npm is
#                                   missing or the registry cannot be reached: the test then
#                                   skips itself, naming the reason
# Safe to run repeatedly: does nothing when .tools/cel holds the lockfile's packages.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
dest=$root/.tools/cel
optional=false
[ "${1:-}" = "--if-npm" ] && optional=true

if cmp -s "$root/tests/cel/package-lock.json" "$dest/package-lock.json" &&
  [ -f "$dest/node_modules/@bufbuild/cel/package.json" ]; then
  exit 0
fi

if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  if $optional; then
    echo "install-cel: no node or npm; the matchConditions test will be skipped (make cel installs them)"
    exit 0
  fi
  bash "$root/tools/install-deps.sh" node
fi

mkdir -p "$dest"
cp "$root/tests/cel/package.json" "$root/tests/cel/package-lock.json" "$dest/"
echo "install-cel: npm ci in $dest"
# npm trusts the machine's certificate store, as apt, curl and git do (Debian's node otherwise
# trusts only the CAs bundled into it, and a proxy's CA added to the machine would not count).
export NODE_OPTIONS="--use-openssl-ca${NODE_OPTIONS:+ $NODE_OPTIONS}"
if ! (cd "$dest" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error); then
  rm -f "$dest/package-lock.json"  # so the next run tries again
  if $optional; then
    echo "install-cel: npm ci failed; the matchConditions test will be skipped (make cel retries)"
    exit 0
  fi
  exit 1
fi
