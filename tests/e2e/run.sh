#!/usr/bin/env bash
# gpugate on a real control plane (tests/e2e/cluster.sh): installed from manifests/base as an
# operator installs it, with only the webhooks' Service swapped for a URL on loopback, and two
# replicas in cluster mode behind one address, running on the shipped ConfigMap's config with a
# token of the shipped ServiceAccount. Each scenario talks to the API server through the built
# kubectl, as a user would.
#
# usage: run.sh [K8S_VERSION]      (make e2e; the binaries come from tools/build-controlplane.sh)
# Logs of every component are kept in the work directory when a scenario fails (E2E_KEEP=1:
# always). Ends with "N passed, M failed"; exit status 1 when one failed.
set -uo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=tests/e2e/checks.sh
source "$root/tests/e2e/checks.sh"
work=$(mktemp -d /tmp/gpugate-e2e.XXXXXX)
cluster=$work/cluster
gpugate=$root/build/webhook/gpugate
passed=0 failed=0
replica_pids=() proxy_pid=

freeport() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

teardown() {
  stop_replicas
  [[ -n $proxy_pid ]] && kill "$proxy_pid" 2>/dev/null
  bash "$root/tests/e2e/cluster.sh" down "$cluster"
  if ((failed > 0)) || [[ ${E2E_KEEP:-} == 1 ]]; then
    echo "e2e: logs kept in $work"
  else
    rm -rf "$work"
  fi
}
trap teardown EXIT

# --- helpers -------------------------------------------------------------------------------

k() { "$K8S_BIN/kubectl" --kubeconfig "$KUBECONFIG" --cache-dir "$work/kube-cache" "$@"; }



# refused_with TEXT: applies stdin; succeeds when the API server refused it with TEXT in the message.
refused_with() {
  local out
  if out=$(k apply -f - 2>&1); then
    echo "admitted: $out"
    return 1
  fi
  [[ $out == *"$1"* ]] || { echo "refused, but not with: $1"$'\n'"$out"; return 1; }
}

# admitted_with TEXT: applies stdin; succeeds when it was admitted and kubectl printed TEXT.
admitted_with() {
  local out
  out=$(k apply -f - 2>&1) || { echo "refused: $out"; return 1; }
  [[ $out == *"$1"* ]] || { echo "admitted without: $1"$'\n'"$out"; return 1; }
}

namespace() {  # NAME [LABEL=VALUE]: a namespace with its default service account
  k create namespace "$1" >/dev/null
  [[ -n ${2:-} ]] && k label namespace "$1" "$2" >/dev/null
  eventually 300 k -n "$1" get serviceaccount default
}

# pod NAME NS GPUS [LIMIT_KEY]: a pod whose one container asks for GPUS nvidia.com/gpu.
pod() {
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
}

# deployment NAME NS REPLICAS: a Deployment of pods labelled app=NAME whose one container asks
# for one nvidia.com/gpu.
deployment() {
  cat <<EOF
apiVersion: apps/v1
kind: Deployment
metadata: {name: $1, namespace: $2}
spec:
  replicas: $3
  selector: {matchLabels: {app: $1}}
  template:
    metadata: {labels: {app: $1}}
    spec:
      containers:
      - name: trainer
        image: registry.invalid/cuda:12
        resources: {limits: {nvidia.com/gpu: "1"}}
EOF
}

cpu_pod() {
  cat <<EOF
apiVersion: v1
kind: Pod
metadata: {name: $1, namespace: $2}
spec:
  containers:
  - {name: app, image: registry.invalid/app:1, resources: {limits: {cpu: 100m}}}
EOF
}

# gpus_are FIELD NS N [PORT...]: the replicas' /quota (both by default) give NS's nvidia.com/gpu
# FIELD ("hard": the limit they see, "used": what they charged) as N.
gpus_are() {
  local field=$1 ns=$2 want=$3 port
  shift 3
  for port in "${@:-${replica_ports[@]}}"; do
    curl -s --cacert "$work/tls/ca.crt" "https://127.0.0.1:$port/quota?namespace=$ns" |
      python3 -c 'import json, sys
r = json.load(sys.stdin)["namespaces"][0]["resources"]["nvidia.com/gpu"]
sys.exit(r.get(sys.argv[1], 0) != int(sys.argv[2]))' "$field" "$want" || return 1
  done
}
limit_seen() { gpus_are hard "$@"; }
used_is() { gpus_are used "$@"; }
# quota_of NS GPUS: a ResourceQuota of GPUS GPUs in NS, once both replicas see its limit.
quota_of() {  # NS GPUS
  k apply -f - >/dev/null <<EOF
apiVersion: v1
kind: ResourceQuota
metadata: {name: gpus, namespace: $1}
spec: {hard: {requests.nvidia.com/gpu: "$2"}}
EOF
  eventually 300 limit_seen "$1" "$2"
}

# Sum of gpugate_admission_decisions_total over both replicas: every review they answered.
decisions() {
  local total=0 port n
  for port in "${replica_ports[@]}"; do
    n=$(curl -s --cacert "$work/tls/ca.crt" "https://127.0.0.1:$port/metrics" |
      awk '/^gpugate_admission_decisions_total/ { s += $2 } END { print s + 0 }')
    total=$((total + n))
  done
  echo "$total"
}

# --- the control plane and gpugate as shipped ----------------------------------------------

bash "$root/tests/e2e/cluster.sh" up "$cluster" "${1:-}" || exit 1
# shellcheck source=/dev/null
source "$cluster/env"

# Nodes without a kubelet: capacity, model labels and Ready, as the kubelet and GPU Feature
# Discovery would report them.
node() {  # NAME PRODUCT GPUS
  k apply -f - >/dev/null <<EOF
apiVersion: v1
kind: Node
metadata:
  name: $1
  labels: {kubernetes.io/hostname: $1, nvidia.com/gpu.product: $2}
EOF
  local now
  now=$(date -u +%Y-%m-%dT%H:%M:%SZ)
  k patch node "$1" --subresource=status --type=merge -p "{\"status\":{
    \"capacity\":{\"cpu\":\"64\",\"memory\":\"512Gi\",\"pods\":\"5000\",\"nvidia.com/gpu\":\"$3\"},
    \"allocatable\":{\"cpu\":\"64\",\"memory\":\"512Gi\",\"pods\":\"5000\",\"nvidia.com/gpu\":\"$3\"},
    \"conditions\":[{\"type\":\"Ready\",\"status\":\"True\",\"reason\":\"E2E\",
      \"lastHeartbeatTime\":\"$now\",\"lastTransitionTime\":\"$now\"}]}}" >/dev/null
  # The API server taints a new Node not-ready; the node lifecycle controller, off here
  # (cluster.sh), would lift it once the Node reports Ready.
  k taint node "$1" node.kubernetes.io/not-ready:NoSchedule- >/dev/null
}
node gpu-a100-1 NVIDIA-A100-SXM4-80GB 64
node gpu-t4-1 Tesla-T4 64

# The webhooks reach gpugate through one address, as through the Service.
service_port=$(freeport)
replica_ports=("$(freeport)" "$(freeport)")
ca_bundle=$("$gpugate" certs --out "$work/tls" --host 127.0.0.1 2>/dev/null)
mkdir -p "$work/kustomize"
cp -r "$root/manifests/base" "$work/kustomize/base"
mkdir -p "$work/kustomize/e2e"
cat >"$work/kustomize/e2e/kustomization.yaml" <<EOF
# manifests/base with the webhooks' Service swapped for gpugate's address on loopback.
resources: [../base]
patches:
- target: {kind: MutatingWebhookConfiguration, name: gpugate}
  patch: |-
    - {op: replace, path: /webhooks/0/clientConfig, value: {url: "https://127.0.0.1:$service_port/mutate", caBundle: "$ca_bundle"}}
- target: {kind: ValidatingWebhookConfiguration, name: gpugate}
  patch: |-
    - {op: replace, path: /webhooks/0/clientConfig, value: {url: "https://127.0.0.1:$service_port/validate", caBundle: "$ca_bundle"}}
EOF
k apply -k "$work/kustomize/e2e" >"$work/apply.log" 2>&1 || { cat "$work/apply.log"; exit 1; }
k wait --for condition=established --timeout=60s crd --all >/dev/null
# The operator's one change to the shipped config, made in the ConfigMap: the GPU models of
# the cluster's Nodes (quota per GPU model), team-m2's default model, and team-v's GPU-hour
# budget over a rolling minute.
k -n gpugate-system get configmap gpugate-config -o jsonpath='{.data.config\.yaml}' >"$work/config.yaml"
cat >>"$work/config.yaml" <<'YAML'
quota:
  flavors:
    a100: {nodeLabels: {nvidia.com/gpu.product: NVIDIA-A100-SXM4-80GB}}
    t4: {nodeLabels: {nvidia.com/gpu.product: Tesla-T4}}
  defaultFlavors:
    team-m2: t4
usage:
  budgets:
  - {pattern: team-v, period: "rolling:1m", gpuHours: {nvidia.com/gpu: 0.01}, warnAt: 50}
YAML
k -n gpugate-system create configmap gpugate-config --from-file=config.yaml="$work/config.yaml" \
  --dry-run=client -o yaml | k apply -f - >/dev/null
k -n gpugate-system get configmap gpugate-config -o jsonpath='{.data.config\.yaml}' >"$work/config.yaml"
# The shipped ServiceAccount's token: gpugate gets exactly what the shipped ClusterRole grants.
token=$(k -n gpugate-system create token gpugate --duration=6h)
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

start_replica() {  # INDEX
  "$gpugate" serve --config "$work/config.yaml" --kubeconfig "$work/gpugate.kubeconfig" \
    --listen "127.0.0.1:${replica_ports[$1]}" \
    --tls-cert "$work/tls/tls.crt" --tls-key "$work/tls/tls.key" \
    >>"$work/gpugate-$1.log" 2>&1 &
  replica_pids[$1]=$!
}
ready() { curl -sf --cacert "$work/tls/ca.crt" "https://127.0.0.1:$1/readyz"; }
start_replicas() {
  start_replica 0
  start_replica 1
  eventually 300 ready "${replica_ports[0]}" >/dev/null && eventually 300 ready "${replica_ports[1]}" >/dev/null
}
stop_replicas() {
  local pid
  for pid in "${replica_pids[@]}"; do kill -TERM "$pid" 2>/dev/null && wait "$pid" 2>/dev/null; done
  replica_pids=()
}
start_replicas || { echo "e2e: gpugate did not become ready"; tail -n 20 "$work"/gpugate-*.log; exit 1; }
python3 "$root/tests/e2e/service_proxy.py" "$service_port" "${replica_ports[@]}" >"$work/proxy.log" 2>&1 &
proxy_pid=$!
eventually 100 ready "$service_port" >/dev/null || { echo "e2e: the service proxy did not start"; exit 1; }
echo "e2e: gpugate replicas on ${replica_ports[*]} behind https://127.0.0.1:$service_port"

if [[ ${E2E_PLAYGROUND:-} == 1 ]]; then  # make e2e-playground: stop here and let a person try
  cat <<EOF

gpugate is installed on a real control plane. In another shell:

  export KUBECONFIG=$KUBECONFIG PATH=$K8S_BIN:$(dirname "$gpugate"):\$PATH
  kubectl create namespace team-a
  kubectl -n team-a run frac --image=cuda --restart=Never \\
    --overrides='{"spec":{"containers":[{"name":"frac","image":"cuda","resources":{"limits":{"nvidia.com/gpu":"0.5"}}}]}}'
  kubectl label namespace team-a gpugate.io/mode=warn
  kubectl -n team-a create quota gpus --hard=requests.nvidia.com/gpu=2
  kubectl -n team-a create job train --image=cuda -- sleep 1   # then add GPU limits, watch it
  kubectl gpuquota -A
  gpugate audit --config $work/config.yaml
  curl -s --cacert $work/tls/ca.crt https://127.0.0.1:${replica_ports[0]}/metrics | grep gpugate_

Logs: $work. Press Enter to tear everything down.
EOF
  read -r
  exit 0
fi

# --- 1. refusals and patches, as kubectl shows them ----------------------------------------

namespace team-a
# The API server hands webhooks its canonical form of a quantity: 0.5 as written arrives as 500m.
check "a fractional GPU pod is refused with gpugate's message" refused_with \
  'admission webhook "mutate.gpugate.io" denied the request: spec.containers[0] "trainer": nvidia.com/gpu limit "500m" must be a whole number of GPUs' \
  < <(pod frac team-a 0.5)
# The API server's own validation (extended resources: requests equal limits) runs before the
# validating webhooks, so this one is refused before gpugate sees it.
check "a Deployment whose GPU request differs from its limit is refused" refused_with \
  'nvidia.com/gpu' <<EOF
apiVersion: apps/v1
kind: Deployment
metadata: {name: uneven, namespace: team-a}
spec:
  selector: {matchLabels: {app: uneven}}
  template:
    metadata: {labels: {app: uneven}}
    spec:
      containers:
      - name: trainer
        image: registry.invalid/cuda:12
        resources: {requests: {nvidia.com/gpu: "1"}, limits: {nvidia.com/gpu: "2"}}
EOF
k apply -f - >/dev/null < <(deployment serve team-a 2)
two_pods() { [[ $(k -n team-a get pods -l app=serve -o name | wc -l) -eq 2 ]]; }
check "a good Deployment becomes a ReplicaSet and its Pods" eventually 300 two_pods
patched() {  # the stored Pods carry the toleration gpugate patched in and are bound to a node
  local p
  for p in $(k -n team-a get pods -l app=serve -o name); do
    k -n team-a get "$p" -o jsonpath='{.spec.tolerations[*].key}' | grep -q 'nvidia.com/gpu' || return 1
  done
}
check "the stored Pods carry gpugate's patch (the nvidia.com/gpu toleration)" patched
bound() { ! k -n team-a get pods -l app=serve -o jsonpath='{.items[*].spec.nodeName}' | grep -qv gpu-; }
check "the scheduler binds them to GPU nodes" eventually 300 bound

# --- 2. matchConditions: what reaches gpugate, and failing closed --------------------------

before=$(decisions)
for i in 1 2 3; do k apply -f - >/dev/null < <(cpu_pod "cpu-$i" team-a); done
check "Pods without GPUs never reach gpugate (its decision counters do not move)" \
  test "$(decisions)" -eq "$before"
stop_replicas
check "with gpugate stopped, a Pod without GPUs is admitted" admitted_with "created" < <(cpu_pod cpu-down team-a)
check "with gpugate stopped, a GPU Pod is refused (fail closed)" refused_with \
  'failed calling webhook' < <(pod gpu-down team-a 1)
start_replicas
gpu_up() { admitted_with created < <(pod gpu-up team-a 1); }
check "gpugate back: a GPU Pod is admitted again" eventually 100 gpu_up

# --- 4. modes by namespace label -----------------------------------------------------------

# A privileged GPU pod: valid to Kubernetes, refused by gpugate's privileged-gpu rule in deny
# mode. (A fractional GPU cannot be used here: the API server's own validation refuses it after
# the mutating webhooks, whatever gpugate's mode.)
privileged_pod() {
  pod "$1" team-w 1 | sed 's/^  - name: trainer$/  - name: trainer\n    securityContext: {privileged: true}/'
}
namespace team-w gpugate.io/mode=warn
check "in warn mode kubectl prints gpugate's warning and the Pod is created" admitted_with \
  'Warning: spec.containers[0] "trainer": privileged container in a pod that requests GPUs' \
  < <(privileged_pod warned)
# A Deployment of such pods, made in warn mode too: its ReplicaSet and its one Pod are created.
deployment warned team-w 1 |
  sed 's/^      - name: trainer$/&\n        securityContext: {privileged: true}/' |
  k apply -f - >/dev/null 2>&1
warned_pods() { k -n team-w get pods -l app=warned -o name | wc -l; }
one_warned_pod() { [[ $(warned_pods) -eq 1 ]]; }
check "a Deployment of such Pods made in warn mode gets its Pod" eventually 300 one_warned_pod
k label namespace team-w gpugate.io/mode=deny --overwrite >/dev/null
refused_in_deny() { refused_with 'privileged container in a pod that requests GPUs' < <(privileged_pod denied); }
check "relabelled deny, the same Pod is refused within seconds" eventually 100 refused_in_deny
relabel() {  # an update that changes no pod spec: admitted although the Pod violates whole-units
  k -n team-w label pod warned owner=alice --overwrite
}
check "the warned Pod, now in deny mode, can still be labelled" relabel
# Scaled now, the Deployment controller scales its ReplicaSet with a plain UPDATE of the whole
# object: no pod spec changes, so gpugate admits it (refusing it would stall the controller on
# every resync); the Pod the ReplicaSet then creates is new, and refused.
rs_unchanged() {  # gpugate's decision lines admitting an UPDATE of a team-w ReplicaSet as unchanged
  cat "$work"/gpugate-*.log |
    grep '"msg":"decision".*"kind":"ReplicaSet".*"namespace":"team-w".*"operation":"UPDATE"' |
    grep -c '"decision":"allowed","reason":"unchanged"'
}
rs_unchanged_before=$(rs_unchanged)
k -n team-w scale deployment warned --replicas=2 >/dev/null
rs_scaled() {
  [[ $(k -n team-w get replicasets -l app=warned -o jsonpath='{.items[*].spec.replicas}') == 2 ]]
}
check "scaled in deny mode, its ReplicaSet takes the new count: the controller's update is admitted" \
  eventually 300 rs_scaled
rs_update_reviewed() {  # the update reached gpugate, which admitted it as changing no pod spec
  [[ $(rs_unchanged) -gt $rs_unchanged_before ]]
}
check "gpugate reviewed that update and admitted it as unchanged" eventually 50 rs_update_reviewed
rs_refused() {
  k -n team-w get events --field-selector involvedObject.kind=ReplicaSet,reason=FailedCreate \
    -o jsonpath='{.items[*].message}' | grep -q 'privileged container in a pod that requests GPUs'
}
check "and the Pod it then creates is refused: the ReplicaSet's event quotes gpugate" \
  eventually 300 rs_refused
check "the Deployment keeps its one warned Pod" one_warned_pod

# --- 3. quota with a ResourceQuota --------------------------------------------------------

namespace team-q
k apply -f - >/dev/null <<EOF
apiVersion: v1
kind: ResourceQuota
metadata: {name: gpus, namespace: team-q}
spec: {hard: {requests.nvidia.com/gpu: "4"}}
EOF
check "both replicas see the ResourceQuota's limit" eventually 300 limit_seen team-q 4
dry_run() { pod dry team-q 1 | k apply --dry-run=server -f - | grep -q '(server dry run)'; }
check "a server-side dry run of a GPU Pod is admitted" dry_run
k apply -f - >/dev/null <<EOF
apiVersion: batch/v1
kind: Job
metadata: {name: train, namespace: team-q}
spec:
  parallelism: 8
  completions: 8
  backoffLimit: 100
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: trainer
        image: registry.invalid/cuda:12
        resources: {limits: {nvidia.com/gpu: "1"}}
EOF
job_pods() { k -n team-q get pods -l job-name=train -o name | wc -l; }
four() { [[ $(job_pods) -eq 4 ]]; }
check "a Job of 8 one-GPU Pods against a limit of 4 gets 4 Pods (the dry run charged nothing)" \
  eventually 300 four
sleep 3
check "and no more" four
refusal_event() {
  k -n team-q get events --field-selector involvedObject.name=train -o jsonpath='{.items[*].message}' |
    grep -q 'exceeded quota: team-q'
}
check "the Job's events carry gpugate's refusal" eventually 300 refusal_event
for p in $(k -n team-q get pods -l job-name=train -o name); do
  k -n team-q patch "$p" --subresource=status --type=merge -p '{"status":{"phase":"Succeeded"}}' >/dev/null
done
eight() { [[ $(job_pods) -eq 8 ]]; }
check "Pods marked Succeeded release their GPUs and the Job's remaining Pods are admitted" \
  eventually 300 eight
quota_valid() {  # the GPUQuota records pass the CRD's schema: the API server stored them
  k -n team-q get gpuquotas.gpugate.io -o name | grep -q gpuquota
}
check "the GPUQuota records exist and pass the CRD's schema" eventually 100 quota_valid

namespace team-c
quota_of team-c 10 >/dev/null
for i in $(seq 40); do echo "$i"; done |
  xargs -P 40 -I{} bash -c "$(declare -f pod); pod burst-{} team-c 1 | \"$K8S_BIN/kubectl\" --kubeconfig \"$KUBECONFIG\" apply -f - >/dev/null 2>&1 || true"
ten() { [[ $(k -n team-c get pods -o name | wc -l) -eq 10 ]]; }
check "40 concurrent creates through both replicas for 10 GPUs leave exactly 10 Pods" ten

# --- 3b. a pod holds its GPUs until it stops: release on removal, not on the first DELETE ---

namespace team-d
quota_of team-d 2 >/dev/null
pod d1 team-d 2 | k apply -f - >/dev/null
d1_bound() { [[ -n $(k -n team-d get pod d1 -o jsonpath='{.spec.nodeName}') ]]; }
check "a two-GPU Pod fills team-d's limit of 2 and is bound to a Node" eventually 300 d1_bound
graceful_delete() {  # no kubelet: the Pod stays terminating until deleted with grace 0
  k -n team-d delete pod d1 --grace-period=120 --wait=false &&
    [[ -n $(k -n team-d get pod d1 -o jsonpath='{.metadata.deletionTimestamp}') ]]
}
check "deleted with a grace period of 120 s, it stays, terminating" graceful_delete
refused_while_terminating() {
  local out
  if out=$(pod d2 team-d 1 | k apply -f - 2>&1); then echo "admitted: $out"; return 1; fi
  echo "$out" >"$work/terminating-refusal.txt"
  [[ $out == *'exceeded quota: team-d, requested: nvidia.com/gpu=1, used: nvidia.com/gpu=2, limited: nvidia.com/gpu=2'* ]]
}
check "while it terminates, gpugate refuses a new GPU Pod: the namespace still holds 2 GPUs" \
  refused_while_terminating
echo "info  while d1 terminates, kubectl said: $(tr '\n' ' ' <"$work/terminating-refusal.txt")"
check "both replicas still count it" used_is team-d 2
k -n team-d delete pod d1 --grace-period=0 --force >/dev/null 2>&1
d2_admitted() { admitted_with created < <(pod d2 team-d 1); }
check "after its final delete (grace 0), the new GPU Pod is admitted" d2_admitted
unscheduled_pod() {  # NAME [NS]: a one-GPU Pod no Node matches, so it is never scheduled
  pod "$1" "${2:-team-d}" 1
  printf '  nodeSelector: {e2e.gpugate.io/no-such-node: "true"}\n'
}
unscheduled_pod d3 | k apply -f - >/dev/null
d3_pending() {
  [[ $(k -n team-d get pod d3 -o jsonpath='{.status.phase}/{.spec.nodeName}') == Pending/ ]]
}
check "a second one-GPU Pod fills the limit again, and is never scheduled" d3_pending
k -n team-d delete pod d3 --wait=false >/dev/null
d4_admitted() { admitted_with created < <(pod d4 team-d 1); }
check "deleting the unscheduled Pod frees its GPU at once: the next Pod is admitted" d4_admitted

# An eviction (POST pods/NAME/eviction, as kubectl drain and the descheduler send) is a CREATE of
# the pods/eviction subresource, which gpugate's webhooks do not receive, and the API server
# removes an evicted pod that is Pending and unscheduled at once, from inside that request: no
# DELETE review of the pod reaches any webhook. Only the pod watch can free its GPU.
namespace team-e
quota_of team-e 1 >/dev/null
unscheduled_pod e1 team-e | k apply -f - >/dev/null
evicted() {
  printf '{"apiVersion":"policy/v1","kind":"Eviction","metadata":{"name":"e1","namespace":"team-e"}}' |
    k create --raw /api/v1/namespaces/team-e/pods/e1/eviction -f - >/dev/null &&
    ! k -n team-e get pod e1 >/dev/null 2>&1
}
check "an unscheduled GPU Pod evicted through the Eviction API is gone at once" evicted
no_delete_review() {  # the replicas' decision lines for DELETEs: d3's (above), none of e1
  local deletes
  deletes=$(grep -h '"msg":"decision".*"operation":"DELETE"' "$work"/gpugate-*.log)
  [[ $deletes == *'"name":"d3"'* && $deletes != *'"name":"e1"'* ]]
}
check "no DELETE review of it reached gpugate (d3's did)" no_delete_review
e2_admitted() { admitted_with created < <(unscheduled_pod e2 team-e); }
check "yet the pod watch frees its GPU: the next GPU Pod is admitted" eventually 150 e2_admitted
# A DeleteCollection (DELETE .../pods, what the namespace controller sends for a namespace being
# deleted) is reviewed pod by pod, each review without request.name: only the old object names it.
collection_deleted() {
  k delete --raw /api/v1/namespaces/team-e/pods >/dev/null && ! k -n team-e get pod e2 >/dev/null 2>&1
}
check "a DeleteCollection of team-e's Pods removes the unscheduled e2 at once" collection_deleted
collection_reviewed() {  # gpugate's decision line names the Pod
  grep -h '"msg":"decision".*"namespace":"team-e".*"operation":"DELETE"' "$work"/gpugate-*.log |
    grep -q '"name":"e2"'
}
check "gpugate reviewed e2's DELETE and its log names the Pod" eventually 50 collection_reviewed
e3_admitted() { admitted_with created < <(pod e3 team-e 1); }
check "e2's GPU is free: the next GPU Pod is admitted" e3_admitted
# A pod's GPUs cannot grow once it is admitted. An UPDATE may not change its containers'
# resources (ValidatePodUpdate). A resize (PATCH pods/NAME/resize, in-place vertical scaling, on
# by default from 1.33) reaches no webhook of gpugate's, which review pods, not that subresource;
# but the API server lets only cpu and memory change there (ValidatePodResize).
more_gpus='{"spec":{"containers":[{"name":"trainer","resources":{"limits":{"nvidia.com/gpu":"2"}}}]}}'
update_refused() {
  local out
  out=$(k -n team-e patch pod e3 -p "$more_gpus" 2>&1) && return 1
  [[ $out == *"pod updates may not change fields other than"* ]]
}
check "an update may not raise e3's GPUs: the API server refuses it before any webhook" \
  update_refused
resize_refused() {
  local out
  out=$(k -n team-e patch pod e3 --subresource resize -p "$more_gpus" 2>&1) && return 1
  [[ $out == *"only cpu and memory resources are mutable"* ]] &&
    [[ $(k -n team-e get pod e3 -o jsonpath='{.spec.containers[0].resources.limits.nvidia\.com/gpu}') == 1 ]]
}
release_minor=${K8S_VERSION#v1.}
release_minor=${release_minor%%.*}
if ((release_minor >= 33)); then
  check "nor may a resize: the API server lets only cpu and memory change there" resize_refused
else
  echo "info  no resize check on $K8S_VERSION: its pods/resize subresource is off by default (1.33 turned it on)"
fi
check "and team-e's charge stays one GPU" used_is team-e 1

# A RuntimeClass's overhead is copied into a Pod's spec.overhead by the API server's RuntimeClass
# admission, before any webhook sees the Pod, and Kubernetes adds it to the Pod's requests for
# ResourceQuota (PodRequests). gpugate charges it too: its figure is the quota controller's.
namespace team-o
quota_of team-o 3 >/dev/null
k apply -f - >/dev/null <<EOF
apiVersion: node.k8s.io/v1
kind: RuntimeClass
metadata: {name: gpu-vm}
handler: kata
overhead: {podFixed: {nvidia.com/gpu: "1", cpu: 250m, memory: 120Mi}}
EOF
vm_pod() {  # NAME: an unscheduled one-GPU Pod of the gpu-vm RuntimeClass
  unscheduled_pod "$1" team-o
  printf '  runtimeClassName: gpu-vm\n'
}
o1_admitted() {
  admitted_with created < <(vm_pod o1) &&
    [[ $(k -n team-o get pod o1 -o jsonpath='{.spec.overhead.nvidia\.com/gpu}') == 1 ]]
}
check "a one-GPU Pod of a RuntimeClass whose overhead holds a GPU is admitted, overhead and all" \
  o1_admitted
check "gpugate charges it two GPUs, its container's and its overhead's" eventually 150 used_is team-o 2
quota_used() {
  [[ $(k -n team-o get resourcequota gpus -o jsonpath='{.status.used.requests\.nvidia\.com/gpu}') == 2 ]]
}
check "as the API server's own ResourceQuota counts it" eventually 120 quota_used
o2_refused() {
  refused_with 'exceeded quota: team-o, requested: nvidia.com/gpu=2, used: nvidia.com/gpu=2, limited: nvidia.com/gpu=3' \
    < <(vm_pod o2)
}
check "a second such Pod would make 4 of 3: gpugate refuses it with the figures" o2_refused

# --- 5. quota per GPU model --------------------------------------------------------------

model_pod() {  # NAME NS [PRODUCT]: a one-GPU Pod pinned to PRODUCT's Nodes, or unpinned
  pod "$1" "$2" 1
  if [[ -n ${3:-} ]]; then printf '  nodeSelector: {nvidia.com/gpu.product: %s}\n' "$3"; fi
}
model_quota() {  # NS
  k apply -f - >/dev/null <<YAML
apiVersion: v1
kind: ResourceQuota
metadata: {name: gpus, namespace: $1}
spec:
  hard:
    requests.nvidia.com/gpu: "8"
    flavor.gpugate.io/a100.nvidia.com_gpu: "2"
    flavor.gpugate.io/t4.nvidia.com_gpu: "4"
YAML
}
a100=NVIDIA-A100-SXM4-80GB
namespace team-m
model_quota team-m
eventually 300 limit_seen team-m 8 >/dev/null
model_pod m-a1 team-m $a100 | k apply -f - >/dev/null
model_pod m-a2 team-m $a100 | k apply -f - >/dev/null
check "a third Pod pinned to A100 is refused by the A100 budget" refused_with \
  'nvidia.com/gpu@a100' < <(model_pod m-a3 team-m $a100)
check "a Pod pinned to T4 is admitted" admitted_with created < <(model_pod m-t1 team-m Tesla-T4)
check "an unpinned GPU Pod is refused, naming the models" refused_with \
  'sets GPU quota per model' < <(model_pod m-u team-m)
on_model_nodes() {
  [[ $(k -n team-m get pod m-a1 m-a2 -o jsonpath='{.items[*].spec.nodeName}') == "gpu-a100-1 gpu-a100-1" &&
    $(k -n team-m get pod m-t1 -o jsonpath='{.spec.nodeName}') == gpu-t4-1 ]]
}
check "pinned Pods are bound to their model's Nodes" eventually 300 on_model_nodes
namespace team-m2
model_quota team-m2
eventually 300 limit_seen team-m2 8 >/dev/null
check "with a default model, an unpinned GPU Pod is admitted" admitted_with created \
  < <(model_pod m2-u team-m2)
pinned_to_t4() {
  [[ $(k -n team-m2 get pod m2-u -o jsonpath='{.spec.nodeSelector.nvidia\.com/gpu\.product}') == Tesla-T4 &&
    $(k -n team-m2 get pod m2-u -o jsonpath='{.spec.nodeName}') == gpu-t4-1 ]]
}
check "and pinned to T4 by gpugate's patch, and bound there" eventually 300 pinned_to_t4

# --- 6. gpugate audit and kubectl gpuquota as an ordinary user; gpugate's own rights -------

# alice: the built-in view role, and the aggregated GPUQuota reader docs/cluster.md suggests.
k apply -f - >/dev/null <<EOF
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: gpugate-gpuquotas-view
  labels: {rbac.authorization.k8s.io/aggregate-to-view: "true"}
rules:
- {apiGroups: [gpugate.io], resources: [gpuquotas], verbs: [get, list, watch]}
EOF
k create clusterrolebinding alice-view --clusterrole=view --user=alice >/dev/null
sed -e 's/token: e2e-admin-token/token: e2e-alice-token/' -e 's/name: admin/name: alice/' \
  -e 's/user: admin/user: alice/' "$KUBECONFIG" >"$work/alice.kubeconfig"
alice_can_read_quota() { "$K8S_BIN/kubectl" --kubeconfig "$work/alice.kubeconfig" -n team-q get gpuquotas; }
eventually 100 alice_can_read_quota >/dev/null
audit_finds_privileged() {
  local out rc=0
  out=$("$gpugate" audit --kubeconfig "$work/alice.kubeconfig" --config "$work/config.yaml" \
    -n team-w 2>&1) || rc=$?
  echo "$out"
  [[ $rc -eq 1 && $out == *'Pod/warned'*'privileged container in a pod that requests GPUs'* ]]
}
check "gpugate audit, as a user with view, lists the Pod deny mode would refuse (exit 1)" \
  audit_finds_privileged
gpuquota_shows() {  # kubectl finds gpugate's plugin on PATH as kubectl-gpuquota
  local out
  out=$(PATH="$(dirname "$gpugate"):$PATH" "$K8S_BIN/kubectl" gpuquota \
    --kubeconfig "$work/alice.kubeconfig" -n team-q 2>&1)
  echo "$out"
  [[ $out == *team-q*nvidia.com/gpu* ]]
}
check "kubectl gpuquota, as the same user, shows team-q's GPUs" gpuquota_shows
sa=system:serviceaccount:gpugate-system:gpugate
may() { [[ $(k auth can-i "$@" --as="$sa" 2>/dev/null) == yes ]]; }
rights() {
  may watch pods -A && may list resourcequotas -A && may watch namespaces &&
    may update gpuquotas.gpugate.io -n team-q &&
    ! may delete pods -A && ! may get secrets -A && ! may create pods -n team-a &&
    ! may update namespaces && ! may delete gpuquotas.gpugate.io -n team-q
}
check "gpugate's token may read pods, quotas and namespaces and write GPUQuotas, nothing more" rights

# --- 6b. GPU-hour budgets: a GPUBudget a cluster admin sets, spent by a running pod --------

namespace team-u
k apply -f - >/dev/null <<EOF
apiVersion: gpugate.io/v1alpha1
kind: GPUBudget
metadata: {name: team-u}
spec:
  namespaces: [team-u]
  period: rolling:24h
  gpuHours: {nvidia.com/gpu: "0.001"}
EOF
check "a GPUBudget passes the shipped CRD's schema" k get gpubudget team-u
alice_reads_budgets() {
  "$K8S_BIN/kubectl" --kubeconfig "$work/alice.kubeconfig" get gpubudgets | grep -q team-u
}
check "any authenticated user (alice) may read GPUBudgets" alice_reads_budgets
alice_writes_no_budget() {
  [[ $("$K8S_BIN/kubectl" --kubeconfig "$work/alice.kubeconfig" auth can-i create \
    gpubudgets.gpugate.io 2>/dev/null) == no ]]
}
check "and may not write them" alice_writes_no_budget
budget_rights() { may watch gpubudgets.gpugate.io && ! may create gpubudgets.gpugate.io; }
check "gpugate's token may read GPUBudgets, not write them" budget_rights
pod u1 team-u 1 | k create -f - >/dev/null
# No kubelet runs it: the status a kubelet would write, started ten minutes ago.
started=$(date -u -d '-10 minutes' +%Y-%m-%dT%H:%M:%SZ)
k -n team-u patch pod u1 --subresource=status --type=merge \
  -p "{\"status\":{\"phase\":\"Running\",\"startTime\":\"$started\"}}" >/dev/null
start_recorded() {
  [[ $(k -n team-u get gpuquota gpugate -o jsonpath='{.status.charges.u1[0].started}') == 20* ]]
}
check "the pod's start is recorded on its GPUQuota charge" eventually 300 start_recorded
budget_refuses() {  # a new name each try: a pod admitted before the budget was seen stays
  refused_with 'exceeded GPU-hour budget: team-u, used: nvidia.com/gpu=' \
    < <(pod "u-$RANDOM" team-u 1)
}
check "10 GPU-minutes spend a budget of 0.001 GPU-hours: the next GPU pod is refused" \
  eventually 100 budget_refuses
k -n team-u patch pod u1 --subresource=status --type=merge -p '{"status":{"phase":"Succeeded"}}' \
  >/dev/null
usage_booked() {
  [[ $(k -n team-u get gpuquota gpugate -o jsonpath='{.status.usage.keys[0].resource}') == \
    nvidia.com/gpu && -z $(k -n team-u get gpuquota gpugate -o jsonpath='{.status.charges.u1}') ]]
}
check "its finish moves its GPU-hours into the GPUQuota's usage book, which the API server keeps" \
  eventually 300 usage_booked

# --- 6c. a budget over a rolling minute, Pods moved through their phases, the report ------

# team-v's budget, from the config's usage section (above; a GPUBudget's window is a day or
# more): 0.01 GPU-hours (36 GPU-seconds) of nvidia.com/gpu in any minute, early warning at 50%.
namespace team-v
# A replica's usage counter counts what accrues after its first reading (docs/quota.md): read both
# now, as Prometheus would have since they started.
for port in "${replica_ports[@]}"; do
  curl -s --cacert "$work/tls/ca.crt" "https://127.0.0.1:$port/metrics" >/dev/null
done
pod u1 team-v 1 | k apply -f - >/dev/null
u1_bound() { [[ -n $(k -n team-v get pod u1 -o jsonpath='{.spec.nodeName}') ]]; }
check "a one-GPU Pod in team-v is admitted and bound" eventually 300 u1_bound
# No kubelet: the Pod's status is written as the kubelet would write it.
u1_start=$(date -u -d '-20 seconds' +%Y-%m-%dT%H:%M:%SZ)
k -n team-v patch pod u1 --subresource=status --type=merge -p "{\"status\":{\"phase\":\"Running\",
  \"startTime\":\"$u1_start\",\"containerStatuses\":[{\"name\":\"trainer\",\"image\":\"registry.invalid/cuda:12\",
  \"imageID\":\"\",\"ready\":true,\"restartCount\":0,\"started\":true,
  \"state\":{\"running\":{\"startedAt\":\"$u1_start\"}}}]}}" >/dev/null
u2_warned() {
  local out
  out=$(pod "u2-$RANDOM" team-v 1 | k apply -f - 2>&1) || { echo "refused: $out"; return 1; }
  echo "$out" >"$work/budget-warning.txt"
  [[ $out == *'Warning: GPU-hour budget '*'% spent: team-v, used: nvidia.com/gpu='*'limited: nvidia.com/gpu=0.01 GPU-hours in the last 1m'* ]]
}
check "with 20 of its 36 GPU-seconds spent, a new GPU Pod is admitted with kubectl's Warning:" \
  eventually 200 u2_warned
echo "info  kubectl said: $(tr '\n' ' ' <"$work/budget-warning.txt")"
u3_refused() {
  local out
  if out=$(pod u3 team-v 1 | k apply -f - 2>&1); then
    k -n team-v delete pod u3 --grace-period=0 --force >/dev/null 2>&1
    echo "admitted: $out"
    return 1
  fi
  echo "$out" >"$work/budget-refusal.txt"
  [[ $out == *'exceeded GPU-hour budget: team-v, used: nvidia.com/gpu='*'limited: nvidia.com/gpu=0.01 GPU-hours in the last 1m; usage older than 1m stops counting'* ]]
}
check "once u1 has run 36 s on its GPU, the next GPU Pod is refused with the figures" \
  eventually 300 u3_refused
echo "info  kubectl said: $(tr '\n' ' ' <"$work/budget-refusal.txt")"
cpu_admitted() { admitted_with created < <(cpu_pod u-cpu team-v); }
check "a CPU Pod in the same namespace is admitted: the budget limits GPUs only" cpu_admitted
u1_end=$(date -u +%Y-%m-%dT%H:%M:%SZ)
k -n team-v patch pod u1 --subresource=status --type=merge -p "{\"status\":{\"phase\":\"Succeeded\",
  \"containerStatuses\":[{\"name\":\"trainer\",\"image\":\"registry.invalid/cuda:12\",
  \"imageID\":\"\",\"ready\":false,\"restartCount\":0,\"started\":false,
  \"state\":{\"terminated\":{\"exitCode\":0,\"reason\":\"Completed\",\"startedAt\":\"$u1_start\",
  \"finishedAt\":\"$u1_end\"}}}]}}" >/dev/null
u1_seconds=$(($(date -d "$u1_end" +%s) - $(date -d "$u1_start" +%s)))
# The finished Pod's usage, as a user with view reads it through kubectl's plugin.
usage_reported() {
  local out
  out=$(PATH="$(dirname "$gpugate"):$PATH" "$K8S_BIN/kubectl" gpuusage \
    --kubeconfig "$work/alice.kubeconfig" -n team-v -o json 2>&1)
  echo "$out"
  python3 -c 'import json, sys
rows = json.loads(sys.argv[1])["rows"]
sys.exit(not any(r["namespace"] == "team-v" and r["resource"] == "nvidia.com/gpu"
                 and r["gpuSeconds"] == int(sys.argv[2]) for r in rows))' "$out" "$u1_seconds"
}
check "kubectl gpuusage shows u1's $u1_seconds GPU-seconds, from its startTime to its finishedAt" \
  eventually 300 usage_reported
both_replicas_agree() {
  local port seconds=()
  for port in "${replica_ports[@]}"; do
    seconds+=("$(curl -s --cacert "$work/tls/ca.crt" "https://127.0.0.1:$port/metrics" |
      awk '/^gpugate_usage_gpu_seconds_total\{namespace="team-v",resource="nvidia.com\/gpu"\}/ { print $2 }')")
  done
  echo "the replicas' counters: ${seconds[*]}; the report: $u1_seconds"
  [[ ${seconds[0]} == "$u1_seconds" && ${seconds[1]} == "$u1_seconds" ]]
}
check "both replicas' usage counters give the same figure: the finish was recorded once" \
  eventually 300 both_replicas_agree
renewed() { admitted_with created < <(pod u4 team-v 1); }
check "once u1's run has left the minute, the budget has renewed: a GPU Pod is admitted" \
  eventually 900 renewed

# --- 7. faults: the API server restarted, etcd stopped, a replica killed mid-burst ---------

gpu_pods_in() { k -n "$1" get pods -o name | wc -l; }
create_gpu_pod() { pod "$1" "$2" 1 | k create --request-timeout=20s -f -; }

namespace team-f
quota_of team-f 3
create_gpu_pod f1 team-f >/dev/null
bash "$root/tests/e2e/cluster.sh" stop "$cluster" kube-apiserver
bash "$root/tests/e2e/cluster.sh" start "$cluster" kube-apiserver
check "after an API server restart, GPU Pods are admitted" eventually 300 create_gpu_pod f2 team-f
create_gpu_pod f3 team-f >/dev/null
check "and the one over the limit refused" refused_with 'exceeded quota: team-f' < <(pod f4 team-f 1)
check "nothing double-charged across the restart (both replicas: 3 GPUs for 3 Pods)" \
  eventually 300 used_is team-f 3
quota_of team-f 5
check "the watches resumed: both replicas see a limit raised after the restart" limit_seen team-f 5

bash "$root/tests/e2e/cluster.sh" stop "$cluster" etcd
# gpugate's own refusal, passed on by the API server as gpugate wrote its status: not a
# Forbidden (no rule refused the Pod) but a Timeout (the charge's deadline passed) or, should
# the write's retries end just before it, an InternalError.
etcd_down_refused() {
  local out
  if out=$(create_gpu_pod f5 team-f 2>&1); then echo "admitted: $out"; return 1; fi
  echo "refused: $out" | tee "$work/etcd-down-refusal.txt"
  [[ $out == *"gpugate could not record the quota charge"* ]] ||
    { echo "not gpugate's refusal"; return 1; }
  [[ $out == *"Error from server (Timeout)"* || $out == *"Error from server (InternalError)"* ]] ||
    { echo "kubectl did not print the reason Timeout or InternalError"; return 1; }
}
check "with etcd stopped, a GPU Pod is refused by gpugate, as a Timeout, not Forbidden" \
  etcd_down_refused
echo "info  with etcd stopped, kubectl said: $(head -c 130 "$work/etcd-down-refusal.txt" | tr '\n' ' ')..." \
  "$(tail -c 200 "$work/etcd-down-refusal.txt" | tr '\n' ' ')"
sleep 3
bash "$root/tests/e2e/cluster.sh" start "$cluster" etcd
check "etcd back, GPU Pods are admitted again" eventually 300 create_gpu_pod f5 team-f
exact() { used_is team-f "$(gpu_pods_in team-f)"; }
check "and the quota is exact: GPUs charged equal the GPU Pods that exist" eventually 300 exact

namespace team-k
quota_of team-k 5
burst() {
  for i in $(seq 20); do echo "$i"; done |
    xargs -P 20 -I{} bash -c "$(declare -f pod); pod k-{} team-k 1 | \"$K8S_BIN/kubectl\" --kubeconfig \"$KUBECONFIG\" create -f - >/dev/null 2>&1 || true"
}
burst &
burst_pid=$!
sleep 0.5
kill -KILL "${replica_pids[1]}"
wait "${replica_pids[1]}" 2>/dev/null
wait "$burst_pid"
at_most_five() { (($(gpu_pods_in team-k) <= 5)); }
check "a replica killed during a burst: no more Pods than the limit" at_most_five
start_replica 1
eventually 300 ready "${replica_ports[1]}" >/dev/null
exact_k() { used_is team-k "$(gpu_pods_in team-k)"; }
check "and both replicas, the killed one restarted, charge exactly the Pods that exist" \
  eventually 300 exact_k

# --- 8. scale: a replica starting on a cluster of a few thousand bound Pods ---------------

scale_pods=${E2E_SCALE_PODS:-2000}
# Room for a GPU Pod in four: H100 Nodes of 64 GPUs, as many as that takes.
for ((i = 0; i * 64 < scale_pods / 4; i++)); do node "gpu-h100-$i" NVIDIA-H100-80GB-HBM3 64; done
namespace team-s
for ((i = 0; i < scale_pods; i++)); do
  if ((i % 4 == 0)); then pod "s-$i" team-s 1; else cpu_pod "s-$i" team-s; fi
  echo ---
done >"$work/scale.yaml"
k create -f "$work/scale.yaml" >/dev/null 2>"$work/scale-create.log"
all_bound() {
  (($(k -n team-s get pods --field-selector spec.nodeName= -o name | wc -l) == 0 &&
    $(k -n team-s get pods -o name | wc -l) == scale_pods))
}
check "$scale_pods Pods created ($((scale_pods / 4)) with GPUs) and bound to Nodes" eventually 6000 all_bound
stop_one() { kill -TERM "${replica_pids[1]}" && wait "${replica_pids[1]}" 2>/dev/null; }
stop_one
started=$(date +%s%N)
start_replica 1
eventually 600 ready "${replica_ports[1]}" >/dev/null
ready_ms=$((($(date +%s%N) - started) / 1000000))
peak_kib=$(awk '/^VmHWM/ { print $2 }' "/proc/${replica_pids[1]}/status")
echo "info  a replica restarted on $scale_pods Pods: ready in $ready_ms ms, peak RSS $((peak_kib / 1024)) MiB"
check "the restarted replica charges the namespace's GPU Pods exactly" \
  eventually 300 used_is team-s "$((scale_pods / 4))" "${replica_ports[1]}"

echo "e2e on Kubernetes $K8S_VERSION, gpugate $("$gpugate" version 2>/dev/null | head -n 1)"
echo "e2e: $passed passed, $failed failed"
((failed == 0))
