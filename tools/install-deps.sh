#!/usr/bin/env bash
# Installs the Debian packages gpugate needs to build, test and benchmark, skipping what is present.
# Safe to run repeatedly; runs apt-get only when something is missing.
set -euo pipefail

packages=(
  build-essential cmake pkg-config
  libcpp-httplib-dev libssl-dev nlohmann-json3-dev libsimdjson-dev libyaml-cpp-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  openssl ca-certificates curl
  tzdata  # /usr/share/zoneinfo: budget periods in local time (common/time_zone.h, and its tests)
)
# Extra groups: `install-deps.sh bench` adds the load generator, plotting, taskset, ss, python3 and
# GNU time (bench/load/run.sh, bench/route_ab.sh). `install-deps.sh fuzz` adds clang 16, its
# libFuzzer and sanitizer runtimes, and llvm-symbolizer (fuzz/; clang 14 cannot compile libstdc++
# 12's std::expected). `install-deps.sh kubectl` adds npm and python3 for tools/install-kubectl.sh;
# `install-deps.sh node` adds Node and npm for tools/install-cel.sh (the matchConditions test's CEL
# evaluator). `install-deps.sh beast` adds Boost's headers, for Boost.Beast's HTTP parser in the
# head-parser comparison only (EVBEAST=1 make bench-load; gpugate itself does not use Boost:
# docs/decisions.md, "Transport under abuse").
# `install-deps.sh e2e` adds what tests/e2e/ runs besides the control plane: python3 (free ports, the
# Service's stand-in proxy), openssl and curl. `install-deps.sh chart` adds python3 with PyYAML for
# tests/chart/; `install-deps.sh image` adds podman, runc and debootstrap (make image).
# `install-deps.sh pgo` adds python3 for the training run of a profile-guided build
# (tools/pgo-build.sh: the image, make release, the load benchmarks).
# `install-deps.sh test` adds strace, valgrind and python3 for the cost budgets of tests/budget/
# and the XML check of usage charts (tests/integration/usage_cli_test.cc)
# (make test runs it).
for group in "$@"; do
  case "$group" in
    bench) packages+=(wrk gnuplot-nox util-linux iproute2 python3 time) ;;
    test) packages+=(strace valgrind python3) ;;  # tests/budget/, usage_cli_test.cc
    fuzz) packages+=(clang-16 libclang-rt-16-dev llvm-16) ;;
    kubectl) packages+=(npm python3) ;;  # tools/install-kubectl.sh
    node) packages+=(nodejs npm) ;;      # tools/install-cel.sh
    beast) packages+=(libboost1.81-dev) ;;  # bench/load/beast/
    e2e) packages+=(python3 openssl curl) ;;  # tests/e2e/ (the Go toolchain is not Debian's)
    chart) packages+=(python3 python3-yaml openssl) ;;  # tests/chart/, tests/image/
    image) packages+=(podman runc debootstrap curl) ;;  # make image, make image-test
    pgo) packages+=(python3) ;;  # tools/pgo-build.sh's training run (tools/pgo_train.py)
    *) echo "install-deps.sh: unknown group '$group'" >&2; exit 2 ;;
  esac
done

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "install-deps: installing ${missing[*]}"
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
