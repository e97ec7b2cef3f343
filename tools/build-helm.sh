#!/usr/bin/env bash
# Builds the Helm CLI from its Go module, for the chart's tests (make chart-test, make e2e):
# .tools/helm/<version>/bin/helm, from the module in tools/helm/v3 (the pinned Helm 3) or
# tools/helm/v4 (Helm 4). Only the Go module proxy is needed; a binary already built for that
# version is skipped, so a second run builds nothing. Prints the binary's path on its last line.
#
# usage: bash tools/build-helm.sh [v3|v4]          (default v3)
#
# Environment (as tools/build-controlplane.sh):
#   GO           go command to use (default: go on PATH, else /usr/local/go/bin/go)
#   BUILD_PROCS  GOMAXPROCS and -p for the go command (default 1: the machine has 2 cores)
#   BUILD_NICE   nice level for the go command (default 19)
#   FORCE=1      rebuild even if present
# Exit status 2 without a go command.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
major=${1:-v3}
[[ $major == v3 || $major == v4 ]] || { echo "build-helm: usage: build-helm.sh [v3|v4]" >&2; exit 2; }
mod=$root/tools/helm/$major
# The packages holding the default Kubernetes version, as Helm's Makefile stamps them.
if [[ $major == v3 ]]; then k8s_version_pkgs="pkg/lint/rules pkg/chartutil"
else k8s_version_pkgs=""; fi  # Helm 4 reads it from the build info of client-go
procs=${BUILD_PROCS:-1}
nicelvl=${BUILD_NICE:-19}

log() { echo "build-helm: $*" >&2; }
die() { echo "build-helm: error: $*" >&2; exit 2; }

gocmd=${GO:-}
if [[ -z $gocmd ]]; then
  if command -v go >/dev/null 2>&1; then gocmd=go
  elif [[ -x /usr/local/go/bin/go ]]; then gocmd=/usr/local/go/bin/go
  fi
fi
[[ -n $gocmd ]] || die "no 'go' command found (Helm is built from its Go module; install Go 1.26 or later)"
rungo() { nice -n "$nicelvl" env GOMAXPROCS="$procs" GOFLAGS="-p=$procs ${GOFLAGS:-}" "$gocmd" "$@"; }

version=$(awk -v m="helm.sh/helm/$major" '{ for (i = 1; i < NF; i++) if ($i == m) { print $(i + 1); exit } }' "$mod/go.mod")
[[ -n $version ]] || die "no helm.sh/helm/$major requirement in $mod/go.mod"
bin=$root/.tools/helm/$version/bin
if [[ ${FORCE:-0} != 1 && -x $bin/helm ]]; then
  log "helm $version already built in $bin"
  echo "$bin/helm"
  exit 0
fi
mkdir -p "$bin"
# Helm stamps its version as its own Makefile does (else `helm version` says v3.x-dev or so).
ldflags="-s -w -X helm.sh/helm/$major/internal/version.version=$version"
ldflags+=" -X helm.sh/helm/$major/internal/version.gitTreeState=clean"
# and the Kubernetes version `helm template` and `helm lint` assume without a cluster: that of
# the client-go it links (as Helm's Makefile does; unstamped, it would be 1.20).
kminor=$(awk '$1 == "k8s.io/client-go" { split($2, v, "."); print v[2]; exit }' "$mod/go.mod")
[[ -n $kminor ]] || die "no k8s.io/client-go requirement in $mod/go.mod"
for p in $k8s_version_pkgs; do
  ldflags+=" -X helm.sh/helm/$major/$p.k8sVersionMajor=1 -X helm.sh/helm/$major/$p.k8sVersionMinor=$kminor"
done
log "building helm $version (helm.sh/helm/$major/cmd/helm) with $procs core(s)..."
start=$(date +%s)
(cd "$mod" && CGO_ENABLED=0 rungo build -trimpath -ldflags="$ldflags" -o "$bin/helm.tmp" \
  "helm.sh/helm/$major/cmd/helm")
mv -f "$bin/helm.tmp" "$bin/helm"
log "built helm $version in $(($(date +%s) - start))s ($(du -h "$bin/helm" | cut -f1)) into $bin"
echo "$bin/helm"
