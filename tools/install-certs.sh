#!/usr/bin/env bash
# Installs or rotates gpugate's serving certificate without cert-manager: issues a CA and a server
# certificate with `gpugate certs`, stores them in the Secret gpugate-tls, points both webhook
# configurations' caBundle at the CA and restarts the Deployment.
#
# Rotation never leaves the API server without a trusted certificate: the caBundle holds the old
# and the new CA while pods move to the new certificate, then the new CA alone.
# Run after `kubectl apply -k manifests`; uses the current kubectl context.
set -euo pipefail

readonly NAMESPACE=gpugate-system
readonly SERVICE=gpugate
readonly SECRET=gpugate-tls
readonly DEPLOYMENT=gpugate
readonly WEBHOOKS=(mutatingwebhookconfiguration/gpugate validatingwebhookconfiguration/gpugate)

usage() {
  cat <<EOF
usage: ${0##*/} [--out DIR] [--days N]

Issues gpugate's TLS certificate and installs it into the cluster of the current kubectl context:
the Secret ${NAMESPACE}/${SECRET} and the caBundle of both gpugate webhook configurations.

  --out DIR     where \`gpugate certs\` writes ca.crt, tls.crt, tls.key
                (default: a temporary directory, removed on exit)
  --days N      certificate lifetime in days (default: gpugate's own default)

Environment: GPUGATE is the gpugate binary (default: \`gpugate\` on PATH).
EOF
}

die() {
  echo "${0##*/}: $*" >&2
  exit 1
}

out_dir=""
days=""
while [ $# -gt 0 ]; do
  case "$1" in
    --out) [ $# -ge 2 ] || die "--out needs a directory"; out_dir="$2"; shift 2 ;;
    --days) [ $# -ge 2 ] || die "--days needs a number"; days="$2"; shift 2 ;;
    -h | --help) usage; exit 0 ;;
    *) usage >&2; exit 2 ;;
  esac
done

gpugate_bin="${GPUGATE:-gpugate}"
command -v "$gpugate_bin" >/dev/null || die "gpugate binary '$gpugate_bin' not found (set GPUGATE)"
command -v kubectl >/dev/null || die "kubectl not found on PATH"

if [ -z "$out_dir" ]; then
  out_dir="$(mktemp -d)"
  trap 'rm -rf "$out_dir"' EXIT
fi

for webhook in "${WEBHOOKS[@]}"; do
  kubectl get "$webhook" >/dev/null || die "$webhook not found: run 'kubectl apply -k manifests' first"
done

# 1. Issue. The caBundle is computed from ca.crt rather than parsed from stdout.
certs_args=(certs --out "$out_dir" --service "$SERVICE" --namespace "$NAMESPACE")
[ -z "$days" ] || certs_args+=(--days "$days")
"$gpugate_bin" "${certs_args[@]}" >/dev/null
new_ca_pem="$(cat "$out_dir/ca.crt")"

# Sets the caBundle of a configuration's one webhook ("add" also replaces an existing value).
patch_ca_bundle() {
  local webhook="$1" bundle="$2"
  kubectl patch "$webhook" --type=json \
    -p "[{\"op\":\"add\",\"path\":\"/webhooks/0/clientConfig/caBundle\",\"value\":\"$bundle\"}]"
}

# 2. Trust the old and the new CA, so pods still serving the old certificate keep working.
for webhook in "${WEBHOOKS[@]}"; do
  old_bundle="$(kubectl get "$webhook" -o jsonpath='{.webhooks[0].clientConfig.caBundle}')"
  pem="$new_ca_pem"
  [ -z "$old_bundle" ] || pem+=$'\n'"$(printf '%s' "$old_bundle" | base64 -d)"
  patch_ca_bundle "$webhook" "$(printf '%s\n' "$pem" | base64 | tr -d '\n')"
done

# 3. Store the new certificate, and move the pods to it.
kubectl -n "$NAMESPACE" create secret tls "$SECRET" \
  --cert="$out_dir/tls.crt" --key="$out_dir/tls.key" --dry-run=client -o yaml | kubectl apply -f -
kubectl -n "$NAMESPACE" rollout restart "deployment/$DEPLOYMENT"
kubectl -n "$NAMESPACE" rollout status "deployment/$DEPLOYMENT" --timeout=180s

# 4. Trust the new CA alone. If the rollout above failed, set -e stops before this step and the
# caBundle keeps trusting both CAs; fix the rollout and run the script again.
new_bundle="$(base64 <"$out_dir/ca.crt" | tr -d '\n')"
for webhook in "${WEBHOOKS[@]}"; do
  patch_ca_bundle "$webhook" "$new_bundle"
done
echo "gpugate certificate installed in $NAMESPACE/$SECRET; caBundle set on ${WEBHOOKS[*]}"
