#!/usr/bin/env bash
# A real Kubernetes control plane on loopback, from the binaries tools/build-controlplane.sh
# builds: etcd, kube-apiserver (RBAC, the default admission plugins: MutatingAdmissionWebhook,
# ValidatingAdmissionWebhook and ResourceQuota among them; service-account tokens signed),
# kube-controller-manager (quota, Deployment, ReplicaSet, Job, garbage collector, namespaces,
# service accounts and tokens) and kube-scheduler. No kubelet: tests create Node objects and move
# pods through their phases with status updates, as a kubelet would. Without a kubelet's
# heartbeats the node lifecycle controller would taint every Node unreachable after 40 s (and
# evict its pods 5 minutes later), so it and taint eviction are off.
#
#   cluster.sh up DIR [VERSION]   start everything, wait until it is ready; writes into DIR:
#                                 env (ports, paths), admin.kubeconfig, ca.crt, *.log, and each
#                                 component's command line and pid (NAME.cmd, NAME.pid)
#   cluster.sh down DIR           stop in reverse order (the API server before etcd)
#   cluster.sh stop DIR NAME      stop one component (etcd, kube-apiserver, ...), for fault tests
#   cluster.sh start DIR NAME     start it again as before, and wait until it is ready
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

stop() {  # NAME
  [[ -f $dir/$1.pid ]] || return 0
  local pid
  pid=$(<"$dir/$1.pid")
  if kill -TERM "$pid" 2>/dev/null; then
    # The API server drains its watches and requests; give each a bounded time.
    wait_for 300 bash -c "! kill -0 $pid" || kill -KILL "$pid" 2>/dev/null || true
  fi
  rm -f "$dir/$1.pid"
}

down() {
  [[ -f $dir/components ]] || return 0
  local names i
  mapfile -t names <"$dir/components"
  for ((i = ${#names[@]} - 1; i >= 0; i--)); do stop "${names[i]}"; done
}

start() {  # NAME BINARY ARGS...: in the background, logging to DIR/NAME.log
  local name=$1
  shift
  printf '%q ' "$@" >"$dir/$name.cmd"
  grep -qx "$name" "$dir/components" 2>/dev/null || echo "$name" >>"$dir/components"
  "$@" >>"$dir/$name.log" 2>&1 &
  echo $! >"$dir/$name.pid"
}

# Waits until NAME, just started, serves (etcd: a new "etcd ready" line after SINCE lines).
ready() {  # NAME SINCE
  case $1 in
    etcd) wait_for 200 bash -c "tail -n +$(($2 + 1)) '$dir/etcd.log' | grep -q 'etcd ready'" ;;
    kube-apiserver) wait_for 600 "$K8S_BIN/kubectl" --kubeconfig "$dir/admin.kubeconfig" get --raw /readyz ;;
    *) sleep 1 ;;
  esac
}

restart() {  # NAME: as `up` started it
  local since
  since=$(wc -l <"$dir/$1.log")
  eval "start $1 $(<"$dir/$1.cmd")"
  # shellcheck source=/dev/null
  source "$dir/env"
  ready "$1" "$since" || fail "$1 did not become ready again"
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
  : >"$dir/components"
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
  K8S_BIN=$bin ready etcd 0 || fail "etcd did not become ready"

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
  K8S_BIN=$bin ready kube-apiserver 0 || fail "kube-apiserver did not become ready"

  # No kubelet posts Node status, so the node lifecycle controller would taint every Node
  # unreachable and evict its Pods: it is off. From 1.29 taint eviction is a controller of its own
  # (before, it was part of the lifecycle controller, and 1.28 refuses an unknown name).
  local minor=${version#v1.} controllers='*,-node-lifecycle-controller'
  minor=${minor%%.*}
  ((minor >= 29)) && controllers+=',-taint-eviction-controller'
  start kube-controller-manager "$bin/kube-controller-manager" \
    --kubeconfig="$dir/admin.kubeconfig" \
    --authentication-kubeconfig="$dir/admin.kubeconfig" \
    --authorization-kubeconfig="$dir/admin.kubeconfig" \
    --bind-address=127.0.0.1 --secure-port="$kcm" \
    --service-account-private-key-file="$dir/sa.key" --root-ca-file="$dir/ca.crt" \
    --use-service-account-credentials --leader-elect=false \
    --controllers="$controllers"
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
  stop) stop "${3:?which component}" ;;
  start) restart "${3:?which component}" ;;
  *) echo "usage: cluster.sh up|down DIR [VERSION]" >&2; exit 2 ;;
esac
