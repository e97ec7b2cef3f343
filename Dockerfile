# gpugate container image. Build: `docker build -t gpugate:0.1.0 .`
# Untested here (no container engine on the development machines); see docs/deployment.md.

# --- build: the same Debian packages the developers and CI use, via tools/install-deps.sh ---
FROM debian:bookworm AS build
WORKDIR /src
COPY tools/install-deps.sh tools/install-deps.sh
RUN bash tools/install-deps.sh && rm -rf /var/lib/apt/lists/*
COPY . .
RUN cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DGPUGATE_BUILD_TESTS=OFF \
 && cmake --build build -j"$(nproc)" --target gpugate \
 && strip build/webhook/gpugate

# --- runtime: only the shared libraries the binary links (nlohmann-json is header-only) ---
FROM debian:bookworm-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends \
      libcpp-httplib0.11 libsimdjson14 libssl3 libspdlog1.10 libyaml-cpp0.7 \
 && rm -rf /var/lib/apt/lists/*
COPY --from=build /src/build/webhook/gpugate /usr/local/bin/gpugate
# The same non-root user the Deployment's securityContext names.
USER 65532:65532
EXPOSE 8443
ENTRYPOINT ["/usr/local/bin/gpugate"]
CMD ["serve"]
