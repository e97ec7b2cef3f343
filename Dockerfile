# gpugate container image. `make image` builds it with podman (docker build works the same) from
# base images made by tools/image-bases.sh; `make image-test` runs it as the Deployment does
# (tests/image/run.sh). docs/deployment.md, "The image": its size and packages.

# --- build: the same Debian packages the developers and CI use, via tools/install-deps.sh ---
FROM debian:bookworm AS build
# Compile jobs: the machine's cores by default (make image passes JOBS).
ARG JOBS=
WORKDIR /src
COPY tools/install-deps.sh tools/install-deps.sh
RUN bash tools/install-deps.sh pgo && rm -rf /var/lib/apt/lists/*
# Only what the binary is built from, and the golden reviews its profile-guided build trains on
# (tools/pgo-build.sh), so a change elsewhere (docs, other tests, manifests) keeps the compiled
# layer.
COPY CMakeLists.txt ./
COPY tools/pgo-build.sh tools/pgo_train.py tools/
COPY tests/testdata/validate tests/testdata/validate
COPY tests/testdata/mutate tests/testdata/mutate
COPY webhook webhook
RUN CMAKE_ARGS="-DGPUGATE_BUILD_TESTS=OFF" JOBS="${JOBS:-$(nproc)}" bash tools/pgo-build.sh build gpugate \
 && strip build/webhook/gpugate

# --- runtime: only the shared libraries the binary links (nlohmann-json is header-only) ---
FROM debian:bookworm-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends \
      libcpp-httplib0.11 libsimdjson14 libssl3 libyaml-cpp0.7 \
 && apt-get clean \
 && rm -rf /var/lib/apt/lists/* /var/cache/apt/*.bin /var/log/apt /var/log/dpkg.log
COPY --from=build /src/build/webhook/gpugate /usr/local/bin/gpugate
# The same non-root user the Deployment's securityContext names.
USER 65532:65532
EXPOSE 8443
ENTRYPOINT ["/usr/local/bin/gpugate"]
CMD ["serve"]
