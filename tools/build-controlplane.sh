#!/usr/bin/env bash
# Builds a Kubernetes control plane from Go modules, for the end-to-end tests:
#   kube-apiserver kube-controller-manager kube-scheduler kubectl etcd
# into .tools/k8s/<version>/bin/, from the module in tests/e2e/controlplane.
#
# usage: bash tools/build-controlplane.sh [K8S_VERSION]     (default: the version pinned there)
#
# Only the Go module proxy is needed (no prebuilt binaries). A binary already built for that
# version is skipped, so a second run builds nothing. Another K8S_VERSION (e.g. v1.36.3) is built
# from a temporary copy of the module whose k8s.io/kubernetes, staging (k8s.io/* v0.X.Y) and etcd
# versions are rewritten from that release's own go.mod, then `go mod tidy`-ed.
#
# Environment:
#   GO               go command to use (default: go on PATH, else /usr/local/go/bin/go)
#   BUILD_PROCS      GOMAXPROCS and -p for the go command (default 1: the machine has 2 cores)
#   BUILD_NICE       nice level for the go command (default 19)
#   FORCE=1          rebuild binaries even if present
#   BINARIES         space-separated subset to build (default: all five)
# A go older than the module needs: exit 2 (export GOTOOLCHAIN=go1.X.Y to let go fetch one).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
mod=$root/tests/e2e/controlplane
procs=${BUILD_PROCS:-1}
nicelvl=${BUILD_NICE:-19}

log() { echo "build-controlplane: $*"; }
die() { echo "build-controlplane: error: $*" >&2; exit 2; }

gocmd=${GO:-}
if [[ -z $gocmd ]]; then
  if command -v go >/dev/null 2>&1; then gocmd=go
  elif [[ -x /usr/local/go/bin/go ]]; then gocmd=/usr/local/go/bin/go
  fi
fi
[[ -n $gocmd ]] && command -v "$gocmd" >/dev/null 2>&1 \
  || die "no 'go' command found (install Go >= the 'go' line of $mod/go.mod, or set GO=/path/to/go)"

# Every go invocation: low priority, at most $procs cores.
rungo() { nice -n "$nicelvl" env GOMAXPROCS="$procs" GOFLAGS="-p=$procs ${GOFLAGS:-}" "$gocmd" "$@"; }

# go directive of a go.mod file, e.g. 1.26.0
go_directive() { awk '$1 == "go" { print $2; exit }' "$1"; }
# 0 if version $1 >= $2 (dotted numbers, "go" prefix and rc/beta suffix ignored)
version_ge() {
  local a=${1#go} b=${2#go}
  a=${a%%[a-z]*}; b=${b%%[a-z]*}
  [[ $(printf '%s\n%s\n' "$b" "$a" | sort -V | head -n 1) == "$b" ]]
}
# The version the go command will really run (outside any module, so that GOTOOLCHAIN
# switching is honoured but no go.mod can refuse it).
have_go=$(cd / && rungo env GOVERSION 2>/dev/null) || die "'$gocmd env GOVERSION' failed; is Go installed correctly?"
require_go() {  # $1: needed version, $2: who needs it
  version_ge "$have_go" "$1" \
    || die "$2 needs go >= $1 but '$gocmd' is $have_go (upgrade Go, or export GOTOOLCHAIN=go$1 or newer to let go fetch that toolchain)"
}

pinned=$(awk '$1 == "k8s.io/kubernetes" && $2 ~ /^v1\./ { print $2; exit }' "$mod/go.mod")
[[ -n $pinned ]] || die "cannot find the k8s.io/kubernetes requirement in $mod/go.mod"
version=${1:-$pinned}
[[ $version == v* ]] || version=v$version
[[ $version =~ ^v1\.[0-9]+\.[0-9]+(-[0-9A-Za-z.]+)?$ ]] || die "K8S_VERSION must look like v1.37.2, got '$version'"
require_go "$(go_directive "$mod/go.mod")" "$mod/go.mod"

bin=$root/.tools/k8s/$version/bin
all=(etcd kube-apiserver kubectl kube-controller-manager kube-scheduler)
read -r -a names <<<"${BINARIES:-${all[*]}}"
for n in "${names[@]}"; do
  [[ " ${all[*]} " == *" $n "* ]] || die "unknown binary '$n' in BINARIES (known: ${all[*]})"
done
todo=()
for n in "${names[@]}"; do
  if [[ ${FORCE:-0} != 1 && -x $bin/$n ]]; then continue; fi
  todo+=("$n")
done
if ((${#todo[@]} == 0)); then
  log "all of ${names[*]} already built for $version in $bin: nothing to build (FORCE=1 to rebuild)"
  exit 0
fi
mkdir -p "$bin"

workdir=$mod
if [[ $version != "$pinned" ]]; then
  # A copy of the module with versions rewritten from that release's go.mod.
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  log "preparing a module for $version in $tmp (pinned is $pinned)"
  kgomod=$(cd "$tmp" && rungo mod download -json "k8s.io/kubernetes@$version" \
    | awk -F'"' '$2 == "GoMod" { print $4 }')
  [[ -f $kgomod ]] || die "could not download the go.mod of k8s.io/kubernetes@$version"
  require_go "$(go_directive "$kgomod")" "k8s.io/kubernetes@$version"
  staging=$(awk '$2 == "=>" && $3 ~ /^\.\/staging\// { print $1 }' "$kgomod")
  etcdver=$(awk '$1 == "go.etcd.io/etcd/server/v3" { print $2; exit }' "$kgomod")
  [[ -n $etcdver ]] || etcdver=$(awk '$1 == "go.etcd.io/etcd/client/v3" { print $2; exit }' "$kgomod")
  [[ -n $etcdver ]] || die "no go.etcd.io/etcd version in k8s.io/kubernetes@$version's go.mod"
  # A fresh go.mod (not the pinned one: its indirect requirements, e.g. a newer etcd api,
  # would win by minimal version selection and mismatch an older release).
  cp "$mod/tools.go" "$tmp/"
  cp -r "$mod/etcd" "$tmp/"
  stagever=v0.${version#v1.}
  edits=(-go="$(go_directive "$kgomod")" -require="k8s.io/kubernetes@$version"
         -require="go.etcd.io/etcd/server/v3@$etcdver")
  for m in $staging; do edits+=(-replace="$m=$m@$stagever"); done
  (cd "$tmp" && rungo mod init gpugate.io/e2e/controlplane 2>/dev/null && rungo mod edit "${edits[@]}")
  log "go mod tidy for $version (staging $stagever, etcd $etcdver)"
  (cd "$tmp" && rungo mod tidy)
  workdir=$tmp
fi

# Version stamps, as Kubernetes' own build sets them (else the binaries say v0.0.0-master).
minor=${version#v1.}; minor=${minor%%.*}
stamp=""
for p in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
  stamp+=" -X $p.gitVersion=$version -X $p.gitMajor=1 -X $p.gitMinor=$minor"
  stamp+=" -X $p.gitTreeState=clean -X $p.buildDate=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
done

total_start=$(date +%s)
for n in "${todo[@]}"; do
  if [[ $n == etcd ]]; then pkg=./etcd; else pkg=k8s.io/kubernetes/cmd/$n; fi
  log "building $n ($pkg) for $version with $procs core(s)..."
  start=$(date +%s)
  (cd "$workdir" && CGO_ENABLED=0 rungo build -trimpath -ldflags="-s -w$stamp" -o "$bin/$n.tmp" "$pkg")
  mv -f "$bin/$n.tmp" "$bin/$n"
  secs=$(($(date +%s) - start))
  log "built $n in ${secs}s ($(du -h "$bin/$n" | cut -f1))"
done
log "built ${todo[*]} for $version in $(($(date +%s) - total_start))s total, into $bin"
