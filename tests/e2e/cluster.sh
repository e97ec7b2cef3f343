#!/usr/bin/env bash
# A real Kubernetes control plane on loopback, from the binaries tools/build-controlplane.sh
# builds: etcd, kube-apiserver (RBAC, the default admission plugins: MutatingAdmissionWebhook,
# ValidatingAdmissionWebhook and ResourceQuota among them; service-account tokens signed),
# kube-controller-manager (quota, Deployment, ReplicaSet, Job, garbage collector, namespaces,
# service accounts and tokens) and kube-scheduler. No kubelet: tests create Node objects and move
# pods through their phases with status updates, as a kubelet would.
#
#   cluster.sh up DIR [VERSION]   start everything, wait until it is ready; writes into DIR:
#                                 env (ports, paths), admin.kubeconfig, ca.crt, pids, *.log
#   cluster.sh down DIR           stop in reverse order (the API server before etcd)
#
# Every port is a free loopback port; nothing listens on another address.
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
cmd=${1:?usage: cluster.sh up|down DIR [VERSION]}
dir=${2:?usage: cluster.sh up|down DIR [VERSION]}

freeport() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

# Waits up to $1 tenths of a second for the command after it to succeed.
wait_for() {
  local tenths=$1 i
  shift
  for ((i = 0; i < tenths; i++)); do
    "$@" >/dev/null 2>&1 && return 0
    sleep 0.1
  done
  return 1
}

down() {
  [[ -f $dir/pids ]] || return 0
  local pids i
  mapfile -t pids <"$dir/pids"
  for ((i = ${#pids[@]} - 1; i >= 0; i--)); do
    local pid=${pids[i]}
    kill -TERM "$pid" 2>/dev/null || continue
    # The API server drains its watches and requests; give each a bounded time.
    wait_for 300 bash -c "! kill -0 $pid" || kill -KILL "$pid" 2>/dev/null || true
  done
  rm -f "$dir/pids"
}

start() {  # NAME BINARY ARGS...: in the background, logging to DIR/NAME.log
  local name=$1
  shift
  "$@" >"$dir/$name.log" 2>&1 &
  echo $! >>"$dir/pids"
}

fail() {
  echo "cluster.sh: $*" >&2
  for log in "$dir"/*.log; do
    [[ -f $log ]] && { echo "--- last lines of $log" >&2; tail -n 15 "$log" >&2; }
  done
  down
  exit 1
}

up() {
  local version=${1:-$(awk '$1 == "k8s.io/kubernetes" { print $2; exit }' \
    "$root/tests/e2e/controlplane/go.mod")}
  local bin=$root/.tools/k8s/$version/bin
  for b in etcd kube-apiserver kube-controller-manager kube-scheduler kubectl; do
    [[ -x $bin/$b ]] || { echo "cluster.sh: no $bin/$b: run bash tools/build-controlplane.sh $version" >&2; exit 2; }
  done
  mkdir -p "$dir"
  : >"$dir/pids"
  local etcdClient etcdPeer api kcm sched
  etcdClient=$(freeport) etcdPeer=$(freeport) api=$(freeport) kcm=$(freeport) sched=$(freeport)

  # The API server's serving certificate for 127.0.0.1 and its CA, made by gpugate itself; the
  # service-account signing key.
  "$root/build/webhook/gpugate" certs --out "$dir/pki" --host 127.0.0.1 --host localhost \
    --service kubernetes --namespace default >/dev/null 2>&1
  openssl genrsa -out "$dir/sa.key" 2048 2>/dev/null
  openssl rsa -in "$dir/sa.key" -pubout -out "$dir/sa.pub" 2>/dev/null
  printf "e2e-admin-token,admin,admin,system:masters\ne2e-alice-token,alice,alice\n" >"$dir/tokens.csv"
  cp "$dir/pki/ca.crt" "$dir/ca.crt"
  cat >"$dir/admin.kubeconfig" <<EOF
apiVersion: v1
kind: Config
clusters:
- name: e2e
  cluster:
    server: https://127.0.0.1:$api
    certificate-authority: $dir/ca.crt
users:
- name: admin
  user:
    token: e2e-admin-token
contexts:
- name: e2e
  context: {cluster: e2e, user: admin}
current-context: e2e
EOF

  start etcd "$bin/etcd" --data-dir "$dir/etcd" --name e2e \
    --listen-client-url "http://127.0.0.1:$etcdClient" --listen-peer-url "http://127.0.0.1:$etcdPeer"
  wait_for 200 grep -q 'etcd ready' "$dir/etcd.log" || fail "etcd did not become ready"

  start kube-apiserver "$bin/kube-apiserver" \
    --etcd-servers="http://127.0.0.1:$etcdClient" \
    --bind-address=127.0.0.1 --secure-port="$api" \
    --advertise-address=127.0.0.1 --endpoint-reconciler-type=none \
    --tls-cert-file="$dir/pki/tls.crt" --tls-private-key-file="$dir/pki/tls.key" \
    --client-ca-file="$dir/pki/ca.crt" \
    --service-account-issuer=https://kubernetes.default.svc \
    --service-account-key-file="$dir/sa.pub" --service-account-signing-key-file="$dir/sa.key" \
    --authorization-mode=Node,RBAC --token-auth-file="$dir/tokens.csv" \
    --service-cluster-ip-range=10.0.0.0/24 --allow-privileged=true \
    ${E2E_APISERVER_FLAGS:-}
  local kubectl=("$bin/kubectl" --kubeconfig "$dir/admin.kubeconfig")
  wait_for 600 "${kubectl[@]}" get --raw /readyz || fail "kube-apiserver did not become ready"

  start kube-controller-manager "$bin/kube-controller-manager" \
    --kubeconfig="$dir/admin.kubeconfig" \
    --authentication-kubeconfig="$dir/admin.kubeconfig" \
    --authorization-kubeconfig="$dir/admin.kubeconfig" \
    --bind-address=127.0.0.1 --secure-port="$kcm" \
    --service-account-private-key-file="$dir/sa.key" --root-ca-file="$dir/ca.crt" \
    --use-service-account-credentials --leader-elect=false
  start kube-scheduler "$bin/kube-scheduler" \
    --kubeconfig="$dir/admin.kubeconfig" \
    --authentication-kubeconfig="$dir/admin.kubeconfig" \
    --authorization-kubeconfig="$dir/admin.kubeconfig" \
    --bind-address=127.0.0.1 --secure-port="$sched" --leader-elect=false
  # Pods need their namespace's default service account, which the controller-manager makes.
  wait_for 600 "${kubectl[@]}" -n default get serviceaccount default ||
    fail "the controller-manager made no default service account"
  cat >"$dir/env" <<EOF
K8S_VERSION=$version
K8S_BIN=$bin
API_PORT=$api
KUBECONFIG=$dir/admin.kubeconfig
API_CA=$dir/ca.crt
EOF
  echo "cluster.sh: Kubernetes $version on https://127.0.0.1:$api (kubeconfig $dir/admin.kubeconfig)"
}

case $cmd in
  up) up "${3:-}" ;;
  down) down ;;
  *) echo "usage: cluster.sh up|down DIR [VERSION]" >&2; exit 2 ;;
esac
