#!/usr/bin/env bash
# The Helm chart on a real control plane (tests/e2e/cluster.sh), as tests/e2e/run.sh does for the
# kustomize base: the values matrix sent with --dry-run=server, then `helm install` with gpugate
# running on the chart's config and certificate (two replicas outside the cluster, with a token of
# the chart's ServiceAccount, behind one loopback address the webhooks' url names), the smoke,
# `helm upgrade` with changed values, and `helm uninstall`. The API server's audit log shows the
# order in which the uninstall deleted objects.
#
# usage: e2e.sh HELM [K8S_VERSION]         (make chart-e2e; needs the control plane's binaries)
# Ends with "N passed, M failed"; exit status 1 when one failed. Logs kept on failure (E2E_KEEP=1:
# always).
set -uo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=tests/e2e/checks.sh
source "$root/tests/e2e/checks.sh"
helm=${1:?usage: e2e.sh HELM [K8S_VERSION]}
work=$(mktemp -d /tmp/gpugate-chart-e2e.XXXXXX)
cluster=$work/cluster
gpugate=${GPUGATE:-$root/build/webhook/gpugate}
chart=$root/manifests/helm/gpugate
ns=gpugate-system
passed=0 failed=0
replica_pids=() proxy_pid= loop_pid=

freeport() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

teardown() {
  [[ -n $loop_pid ]] && kill "$loop_pid" 2>/dev/null
  declare -F stop_replicas >/dev/null && stop_replicas
  [[ -n $proxy_pid ]] && kill "$proxy_pid" 2>/dev/null
  bash "$root/tests/e2e/cluster.sh" down "$cluster"
  if ((failed > 0)) || [[ ${E2E_KEEP:-} == 1 ]]; then echo "chart e2e: logs kept in $work"; else rm -rf "$work"; fi
}
trap teardown EXIT

k() { "$K8S_BIN/kubectl" --kubeconfig "$KUBECONFIG" --cache-dir "$work/kube-cache" "$@"; }
h() { "$helm" --kubeconfig "$KUBECONFIG" "$@"; }



pod() {  # NAME NS GPUS [privileged]
  cat <<EOF
apiVersion: v1
kind: Pod
metadata: {name: $1, namespace: $2}
spec:
  restartPolicy: Never
  containers:
  - name: trainer
    image: registry.invalid/cuda:12
    resources:
      limits: {nvidia.com/gpu: "$3"}
EOF
  [[ ${4:-} == privileged ]] && echo "    securityContext: {privileged: true}"
  return 0
}

refused_with() {  # TEXT: applies stdin; succeeds when refused with TEXT in the message
  local out
  if out=$(k apply -f - 2>&1); then echo "admitted: $out"; return 1; fi
  [[ $out == *"$1"* ]] || { echo "refused, but not with: $1"$'\n'"$out"; return 1; }
}

admitted_with() {  # TEXT: applies stdin; succeeds when admitted and kubectl printed TEXT
  local out
  out=$(k apply -f - 2>&1) || { echo "refused: $out"; return 1; }
  [[ $out == *"$1"* ]] || { echo "admitted without: $1"$'\n'"$out"; return 1; }
}

# --- the control plane, with an audit log of every delete ----------------------------------

mkdir -p "$work"
cat >"$work/audit-policy.yaml" <<'EOF'
apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived]
rules:
- level: Metadata
  verbs: [delete]
- level: None
EOF
E2E_APISERVER_FLAGS="--audit-policy-file=$work/audit-policy.yaml --audit-log-path=$work/audit.log" \
  bash "$root/tests/e2e/cluster.sh" up "$cluster" "${2:-}" || exit 1
# shellcheck source=/dev/null
source "$cluster/env"
echo "chart e2e: $("$helm" version --short) on Kubernetes $K8S_VERSION"

# --- 1. the values matrix, accepted by the API server ---------------------------------------

# The cert-manager and Prometheus operator kinds, as stand-ins without a schema (their real CRDs
# are not at hand here): the API server accepts any spec of theirs, so the table's assertions
# are what checks those objects.
k apply -f "$root/tests/chart/standin-crds.yaml" >/dev/null
k wait --for condition=established --timeout=60s crd --all >/dev/null
k create namespace "$ns" >/dev/null
python3 "$root/tests/chart/chart_test.py" "$helm" "$K8S_BIN/kubectl" --server "$KUBECONFIG" >"$work/dry-runs.txt" 2>&1
dry_rc=$?
cat "$work/dry-runs.txt" | grep -v '^chart dry runs:'
read -r dry_passed dry_failed < <(awk '/^chart dry runs:/ { print $4, $6 }' "$work/dry-runs.txt")
passed=$((passed + ${dry_passed:-0})) failed=$((failed + ${dry_failed:-1}))
((dry_rc == 0 || ${dry_failed:-1} > 0)) || failed=$((failed + 1))

# --- 2. helm install; gpugate on the chart's config and certificate -------------------------

service_port=$(freeport)
replica_ports=("$(freeport)" "$(freeport)")
install_values=(--set "webhooks.url=https://127.0.0.1:$service_port"
                --set "certificates.extraIPAddresses={127.0.0.1}")
mistyped() {  # refused before anything reaches the cluster, naming the value
  local out
  out=$(h install gpugate "$chart" -n "$ns" --set replica=3 2>&1) && { echo "installed: $out"; return 1; }
  echo "$out"
  [[ $out == *"INSTALLATION FAILED"*"additional properties 'replica' not allowed"* ]] &&
    ! k get validatingwebhookconfiguration gpugate 2>/dev/null && ! h status gpugate -n "$ns" 2>/dev/null
}
check "helm install with a mistyped value is refused, naming it, and installs nothing" mistyped
installed() {
  local out
  out=$(h install gpugate "$chart" -n "$ns" --create-namespace "${install_values[@]}" 2>&1)
  local rc=$?
  echo "$out"
  ((rc == 0)) && [[ $out == *"rollout status deployment/gpugate"* && $out == *"kubectl gpuquota -A"* &&
    $out == *"config.modes.default=audit"* && $out == *"gpugate.io/mode=warn"* ]]
}
check "helm install; its notes give the next commands (rollout, kubectl gpuquota, audit to deny)" installed
k wait --for condition=established --timeout=60s crd gpuquotas.gpugate.io >/dev/null

secret_field() { k -n "$ns" get secret "$1" -o jsonpath="{.data.${2//./\\.}}"; }
ca_bundles() {
  k get mutatingwebhookconfiguration,validatingwebhookconfiguration gpugate \
    -o jsonpath='{range .items[*]}{.webhooks[0].clientConfig.caBundle}{"\n"}{end}'
}
fetch_config() {  # the chart's ConfigMap and Secret, as the pods would mount them
  mkdir -p "$work/tls"
  k -n "$ns" get configmap gpugate-config -o jsonpath='{.data.config\.yaml}' >"$work/config.yaml"
  for f in tls.crt tls.key ca.crt; do secret_field gpugate-tls "$f" | base64 -d >"$work/tls/$f"; done
}
fetch_config
installed_crt=$(secret_field gpugate-tls tls.crt)
installed_ca=$(secret_field gpugate-tls-ca tls.crt)
installed_bundles=$(ca_bundles)
token=$(k -n "$ns" create token gpugate --duration=2h)
cat >"$work/gpugate.kubeconfig" <<EOF
apiVersion: v1
kind: Config
clusters:
- name: e2e
  cluster: {server: "https://127.0.0.1:$API_PORT", certificate-authority: "$API_CA"}
users:
- name: gpugate
  user: {token: "$token"}
contexts:
- name: e2e
  context: {cluster: e2e, user: gpugate}
current-context: e2e
EOF

start_replica() {  # INDEX: the chart's config, the chart's certificate, the chart's ServiceAccount
  "$gpugate" serve --config "$work/config.yaml" --kubeconfig "$work/gpugate.kubeconfig" \
    --listen "127.0.0.1:${replica_ports[$1]}" \
    --tls-cert "$work/tls/tls.crt" --tls-key "$work/tls/tls.key" >>"$work/gpugate-$1.log" 2>&1 &
  replica_pids[$1]=$!
}
ready() { curl -sf --cacert "$work/tls/ca.crt" "https://127.0.0.1:$1/readyz"; }
stop_replica() { kill -TERM "${replica_pids[$1]}" 2>/dev/null && wait "${replica_pids[$1]}" 2>/dev/null; }
stop_replicas() {
  local i
  for i in "${!replica_pids[@]}"; do stop_replica "$i"; done
  replica_pids=()
}
start_replica 0
start_replica 1
eventually 300 ready "${replica_ports[0]}" >/dev/null && eventually 300 ready "${replica_ports[1]}" >/dev/null ||
  { echo "chart e2e: gpugate did not become ready"; tail -n 20 "$work"/gpugate-*.log; exit 1; }
python3 "$root/tests/e2e/service_proxy.py" "$service_port" "${replica_ports[@]}" >"$work/proxy.log" 2>&1 &
proxy_pid=$!
eventually 100 ready "$service_port" >/dev/null || { echo "chart e2e: the service proxy did not start"; exit 1; }

# --- 3. the smoke ---------------------------------------------------------------------------

k create namespace team-a >/dev/null
eventually 300 k -n team-a get serviceaccount default >/dev/null
check "a fractional GPU pod is refused with gpugate's message (the API server trusts the chart's CA)" \
  refused_with 'admission webhook "mutate.gpugate.io" denied the request: spec.containers[0] "trainer": nvidia.com/gpu limit "500m" must be a whole number of GPUs' \
  < <(pod frac team-a 0.5)
check "a good GPU pod is admitted" admitted_with created < <(pod good team-a 1)
patched() { k -n team-a get pod good -o jsonpath='{.spec.tolerations[*].key}' | grep -q 'nvidia.com/gpu'; }
check "and patched by gpugate (the nvidia.com/gpu toleration)" patched
check "in deny mode (the chart's default config), a privileged GPU pod is refused" \
  refused_with 'privileged container in a pod that requests GPUs' < <(pod priv team-a 1 privileged)

# --- 4. helm upgrade with changed values ----------------------------------------------------

# Reviews all through the upgrade and the replicas' restart: dry-run creates of a GPU pod, each
# one's answer kept. None may fail for trust (x509, "failed calling webhook").
review_loop() {
  local i=0
  while :; do
    pod "loop-$i" team-a 1 | k apply --dry-run=server -f - >>"$work/loop.log" 2>&1
    echo "--- $?" >>"$work/loop.log"
    i=$((i + 1))
  done
}
review_loop &
loop_pid=$!
old_checksum=$(k -n "$ns" get deployment gpugate -o jsonpath='{.spec.template.metadata.annotations.checksum/config}')
check "helm upgrade: modes.default warn, 3 replicas, a 10 s timeout" \
  h upgrade gpugate "$chart" -n "$ns" --reuse-values --set config.modes.default=warn \
  --set replicas=3 --set webhooks.timeoutSeconds=10
check "the serving certificate is kept" test "$(secret_field gpugate-tls tls.crt)" == "$installed_crt"
check "the CA is kept" test "$(secret_field gpugate-tls-ca tls.crt)" == "$installed_ca"
check "the webhooks' caBundle is kept" test "$(ca_bundles)" == "$installed_bundles"
upgraded() {
  [[ $(k -n "$ns" get deployment gpugate -o jsonpath='{.spec.replicas}') == 3 &&
    $(k get validatingwebhookconfiguration gpugate -o jsonpath='{.webhooks[0].timeoutSeconds}') == 10 &&
    $(k -n "$ns" get deployment gpugate -o jsonpath='{.spec.template.metadata.annotations.checksum/config}') != "$old_checksum" ]]
}
check "the values changed what they set (replicas, timeout, the config's checksum that rolls pods)" upgraded
fetch_config
new_mode() {
  python3 -c 'import sys, yaml; c = yaml.safe_load(open(sys.argv[1]))
assert c["modes"] == {"default": "warn"} and c["cluster"]["enabled"], c' "$work/config.yaml"
}
check "the ConfigMap holds the new mode (modes.default: warn), still in cluster mode" new_mode
check "the files the replicas serve are the ones they started with" test "$(base64 -w0 <"$work/tls/tls.crt")" == "$installed_crt"
# The rolling update, one replica at a time, each back before the next goes.
for i in 0 1; do
  stop_replica "$i"
  start_replica "$i"
  eventually 300 ready "${replica_ports[$i]}" >/dev/null
done
check "after the rollout, warn mode: the privileged GPU pod is admitted with gpugate's warning" \
  admitted_with 'Warning: spec.containers[0] "trainer": privileged container in a pod that requests GPUs' \
  < <(pod priv team-a 1 privileged)
kill "$loop_pid" 2>/dev/null
wait "$loop_pid" 2>/dev/null
loop_pid=
reviews=$(grep -c '^--- ' "$work/loop.log")
echo "info  $reviews reviews sent through the upgrade and the rollout"
no_trust_failure() {
  ! grep -E 'x509|failed calling webhook|certificate' "$work/loop.log" && ((reviews > 0)) &&
    [[ $(grep -c '^--- 0$' "$work/loop.log") == "$reviews" ]]
}
check "no review failed through the upgrade (none for trust), and every one was admitted" no_trust_failure

# A name added to the certificate: the same CA signs a new one, so the caBundle stays and the
# replicas, re-reading their files (tls.reloadInterval), stay trusted without a restart.
check "helm upgrade adding a DNS name to the certificate" \
  h upgrade gpugate "$chart" -n "$ns" --reuse-values --set 'certificates.extraDNSNames={gpugate.example.org}'
resigned() {
  local crt
  crt=$(secret_field gpugate-tls tls.crt)
  [[ $crt != "$installed_crt" ]] || { echo "the certificate did not change"; return 1; }
  [[ $(secret_field gpugate-tls-ca tls.crt) == "$installed_ca" && $(ca_bundles) == "$installed_bundles" ]] ||
    { echo "the CA or the caBundle changed"; return 1; }
  base64 -d <<<"$crt" >"$work/resigned.crt"
  openssl verify -CAfile "$work/tls/ca.crt" "$work/resigned.crt" &&
    openssl x509 -in "$work/resigned.crt" -noout -ext subjectAltName | grep -q 'DNS:gpugate.example.org'
}
check "a new certificate for the new name, signed by the same CA; the caBundle unchanged" resigned
fetch_config  # as the kubelet updates a mounted Secret
served_new() {
  openssl s_client -connect "127.0.0.1:${replica_ports[0]}" </dev/null 2>/dev/null |
    openssl x509 -noout -ext subjectAltName | grep -q 'DNS:gpugate.example.org'
}
check "the replicas serve it without a restart" eventually 300 served_new
check "and the API server trusts them still: a GPU pod is admitted" admitted_with created < <(pod rotated team-a 1)

# --- 5. helm uninstall ----------------------------------------------------------------------

check "helm uninstall" h uninstall gpugate -n "$ns"
stop_replicas  # the pods are gone with the Deployment
check "a GPU pod created right after is admitted by the API server (no webhook left to fail closed)" \
  admitted_with created < <(pod after team-a 1)
gone() {
  ! k get mutatingwebhookconfiguration gpugate 2>/dev/null && ! k get validatingwebhookconfiguration gpugate 2>/dev/null &&
    ! k -n "$ns" get service gpugate 2>/dev/null && ! k get crd gpuquotas.gpugate.io 2>/dev/null
}
check "the webhook configurations, the Service and the CRD are gone (no hook object left)" gone
# Each successful delete in the audit log, in the order they completed.
python3 - "$work/audit.log" >"$work/deletes.txt" <<'EOF'
import json, sys
for line in open(sys.argv[1]):
    e = json.loads(line)
    r = e.get("objectRef", {})
    if e.get("verb") == "delete" and e.get("stage") == "ResponseComplete" and \
            e.get("responseStatus", {}).get("code") == 200 and r.get("name") in ("gpugate", "gpugate-tls"):
        print(e["stageTimestamp"], e["requestReceivedTimestamp"], r.get("resource"), r.get("name"))
EOF
webhooks_first() {
  cat "$work/deletes.txt"
  python3 - "$work/deletes.txt" <<'EOF'
import sys
rows = [l.split() for l in open(sys.argv[1])]
def first(resource, field):
    return min(r[field] for r in rows if r[2] == resource)
service = first("services", 1)          # when the Service's delete was received
for resource in ("mutatingwebhookconfigurations", "validatingwebhookconfigurations"):
    done = first(resource, 0)           # when the configuration's first delete completed
    assert done < service, f"{resource} deleted at {done}, the Service's delete received at {service}"
deployment = first("deployments", 1)
assert max(first(r, 0) for r in ("mutatingwebhookconfigurations", "validatingwebhookconfigurations")) < deployment
EOF
}
check "the uninstall deleted both webhook configurations before the Service and the Deployment" webhooks_first

echo "chart e2e: $("$helm" version --short), Kubernetes $K8S_VERSION"
echo "chart e2e: $passed passed, $failed failed"
((failed == 0))
