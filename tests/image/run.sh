#!/usr/bin/env bash
# The container image `make image` builds, run as the Deployment runs it: as uid 65532 with every
# capability dropped and no privilege escalation, a read-only root filesystem, the certificate and
# the ConfigMap's config mounted read-only (the local-ledger overlay's config.yaml, which needs no
# API server, and its journal's volume), on the host's network. Checks /healthz, a review, a
# graceful SIGTERM, and that the runtime stage holds only what the binary links.
#
# usage: run.sh [IMAGE]          (make image-test; IMAGE defaults to gpugate:<appVersion>)
# Ends with "N passed, M failed"; exit status 1 when one failed.
set -uo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=tests/e2e/checks.sh
source "$root/tests/e2e/checks.sh"
export CONTAINERS_CONF=${CONTAINERS_CONF:-$root/tools/image/containers.conf}
version=$(awk '$1 == "appVersion:" { gsub(/"/, "", $2); print $2 }' "$root/manifests/helm/gpugate/Chart.yaml")
image=${1:-gpugate:$version}
work=$(mktemp -d /tmp/gpugate-image-test.XXXXXX)
name=gpugate-image-test-$$
passed=0 failed=0

cleanup() {
  podman rm -f "$name" >/dev/null 2>&1
  if ((failed > 0)); then echo "image-test: files kept in $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT



podman image exists "$image" || { echo "image-test: no $image in podman's store: run make image" >&2; exit 2; }
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')

# The Secret and the ConfigMap as the kubelet would mount them: the certificate made by the
# image's own `gpugate certs`, group-readable by the pod's fsGroup; the local ledger's config
# with the base's graceful stop (shutdownDelaySeconds), and a writable volume for its journal.
mkdir -p "$work/tls" "$work/config" "$work/state"
chmod 0777 "$work/tls"
podman run --rm --network=none --user 65532:65532 -v "$work/tls:/out" "$image" \
  certs --out /out --host 127.0.0.1 >/dev/null 2>"$work/certs.log" ||
  { cat "$work/certs.log"; echo "image-test: gpugate certs failed"; exit 1; }
chmod 0755 "$work/tls"
{ cat "$root/manifests/overlays/local-ledger/config.yaml"; echo "shutdownDelaySeconds: 10"; } >"$work/config/config.yaml"
chown 65532:65532 "$work/state"

podman run -d --name "$name" --network=host \
  --user 65532:65532 --cap-drop=ALL --security-opt=no-new-privileges \
  --read-only --read-only-tmpfs=false \
  -v "$work/tls:/etc/gpugate/tls:ro" -v "$work/config:/etc/gpugate/config:ro" \
  -v "$work/state:/var/lib/gpugate" \
  "$image" serve --config /etc/gpugate/config/config.yaml --listen "127.0.0.1:$port" >/dev/null ||
  { echo "image-test: podman run failed"; exit 1; }

get() { curl -s --cacert "$work/tls/ca.crt" -o /dev/null -w '%{http_code}' "https://127.0.0.1:$port$1"; }
healthy() { [[ $(get /healthz) == 200 ]]; }
check "/healthz answers 200 over TLS with the mounted certificate" eventually 300 healthy
check "/readyz answers 200" test "$(get /readyz)" == 200

review() {
  curl -s --cacert "$work/tls/ca.crt" -H 'Content-Type: application/json' \
    --data @"$root/tests/testdata/validate/pod-fractional-gpu-denied.request.json" \
    "https://127.0.0.1:$port/validate"
}
refuses_fractional() {
  local out
  out=$(review)
  python3 -c 'import json, sys
r = json.loads(sys.argv[1])["response"]
assert r["allowed"] is False, r
assert "must be a whole number of GPUs" in r["status"]["message"], r' "$out" || { echo "$out"; return 1; }
}
check "a review of a fractional GPU is refused with gpugate's message" refuses_fractional

pid=$(podman inspect --format '{{.State.Pid}}' "$name")
uids() { awk '/^Uid:/ { print $2, $3, $4, $5 }' "/proc/$pid/status"; }
check "the process runs as uid 65532" test "$(uids)" == "65532 65532 65532 65532"
no_caps() { [[ $(awk '/^CapEff:/ { print $2 }' "/proc/$pid/status") == 0000000000000000 ]]; }
check "with no capabilities" no_caps
check "no new privileges" grep -qx $'NoNewPrivs:\t1' "/proc/$pid/status"
read_only() {
  local out
  out=$(podman exec "$name" /bin/sh -c 'echo x > /usr/local/bin/x' 2>&1) && return 1
  [[ $out == *"Read-only file system"* ]] || { echo "$out"; return 1; }
}
check "the root filesystem is read-only" read_only
journal() { [[ -s $work/state/ledger.journal ]] || ls -la "$work/state"; }
check "the local ledger writes its journal to its volume" eventually 50 journal

# A graceful stop: on SIGTERM gpugate goes unready but keeps answering for shutdownDelay (while
# endpoints would drop the pod), then exits 0.
podman kill --signal TERM "$name" >/dev/null
unready() { [[ $(get /readyz) == 503 ]]; }
check "after SIGTERM, /readyz answers 503 (draining)" eventually 50 unready
check "and reviews are still answered while draining" refuses_fractional
exit_code=$(podman wait "$name")
check "then gpugate exits 0" test "$exit_code" == 0
logs=$(podman logs "$name" 2>&1)
check "its log says why and when (stopping on SIGTERM, then stopped)" \
  grep -q '"msg":"stopping".*"signal":"SIGTERM"' <<<"$logs"
check "and stopped" grep -q '"msg":"stopped"' <<<"$logs"

# The runtime stage: every library the binary links resolves, each package the Dockerfile adds
# provides one of them, and nothing else was added to debian:bookworm-slim but their dependencies.
ldd_out=$(podman run --rm --network=none --entrypoint /usr/bin/ldd "$image" /usr/local/bin/gpugate)
check "every library the binary links is in the image" bash -c "! grep -q 'not found' <<<'$ldd_out'"
added=$(sed -n '/^FROM debian:bookworm-slim/,$p' "$root/Dockerfile" | grep -oE 'lib[a-z0-9.+-]+[0-9][a-z0-9.+-]*' | sort -u)
owners=$(podman run --rm --network=none --entrypoint /bin/sh "$image" -c \
  "ldd /usr/local/bin/gpugate | awk '/=> \// { print \$3 }' | xargs -r readlink -f | xargs -r dpkg -S 2>/dev/null" |
  cut -d: -f1 | sort -u)
each_needed() {
  local p bad=0
  for p in $added; do
    grep -qx "$p" <<<"$owners" || { echo "$p provides no library the binary links"; bad=1; }
  done
  return $bad
}
check "each package the runtime stage installs provides a library the binary links" each_needed
base_pkgs=$(podman run --rm --network=none --entrypoint dpkg-query debian:bookworm-slim -W -f '${Package}\n' | sort)
image_pkgs=$(podman run --rm --network=none --entrypoint dpkg-query "$image" -W -f '${Package}\n' | sort)
extra=$(comm -13 <(echo "$base_pkgs") <(echo "$image_pkgs"))
only_deps() {  # the extra packages are the added ones and what they depend on, nothing more
  local closure
  closure=$(podman run --rm --network=none --entrypoint /bin/sh "$image" -c \
    "apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts --no-breaks --no-replaces --no-enhances $(echo $added) 2>/dev/null | grep -v '^ ' | sort -u" 2>/dev/null)
  local p bad=0
  for p in $extra; do grep -qx "$p" <<<"$closure" || { echo "$p is neither added nor a dependency"; bad=1; }; done
  return $bad
}
check "the packages beyond debian:bookworm-slim are those and their dependencies only" only_deps
size=$(podman image inspect --format '{{.Size}}' "$image")
echo "info  $image: $((size / 1024 / 1024)) MiB; packages beyond debian:bookworm-slim: $(echo $extra)"
echo "info  it links: $(awk '/=>/ { print $1 }' <<<"$ldd_out" | tr '\n' ' ')"

echo "image-test: $passed passed, $failed failed"
((failed == 0))
