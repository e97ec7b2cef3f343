# gpugate: `make run` and `make test` work on a fresh Debian bookworm machine.
BUILD ?= build
JOBS ?= 2
GPUGATE := $(BUILD)/webhook/gpugate
DEV_CERTS := certs/dev

PREFIX ?= /usr/local

.PHONY: all deps build test run certs install bench bench-micro bench-load soak-load format clean

all: build

deps:
	@bash tools/install-deps.sh

$(BUILD)/CMakeCache.txt:
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo

build: deps $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j$(JOBS)

test: build
	cd $(BUILD) && ctest --output-on-failure --timeout 600

# Development certificates for https://127.0.0.1:8443 (and localhost), made once.
$(DEV_CERTS)/tls.crt: | build
	$(GPUGATE) certs --out $(DEV_CERTS) --host localhost --host 127.0.0.1 >/dev/null

certs: build $(DEV_CERTS)/tls.crt

run: build $(DEV_CERTS)/tls.crt
	$(GPUGATE) serve --listen 127.0.0.1:8443 \
	  --tls-cert $(DEV_CERTS)/tls.crt --tls-key $(DEV_CERTS)/tls.key

# gpugate and the kubectl plugin link kubectl-gpuquota into $(PREFIX)/bin.
install: build
	cmake --install $(BUILD) --prefix $(PREFIX)

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
	@bash tools/install-deps.sh bench
	JOBS=$(JOBS) bash bench/load/run.sh load

# gpugate under 256 connections for DURATION (300 s), its RSS every 5 s in bench/results/soak.csv.
soak-load:
	@bash tools/install-deps.sh bench
	JOBS=$(JOBS) bash bench/load/run.sh soak

format:
	find webhook tests bench -name '*.h' -o -name '*.cc' | xargs clang-format -i

clean:
	rm -rf $(BUILD)
