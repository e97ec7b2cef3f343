#!/usr/bin/env bash
# The README's quick start, as a new user meets it: a clean Debian bookworm root made with
# debootstrap (minbase plus build-essential, cmake, git, make, python3, curl, ca-certificates),
# a clone of the current commit inside it, `make run` until https://127.0.0.1:8443/healthz
# answers, then `make test` while it serves. Prints the elapsed time of each step.
#
#   sudo tools/fresh-check.sh            # the whole check (`make fresh-check`)
#   sudo tools/fresh-check.sh --prepare  # only make the cached base root
#
# Needs root (debootstrap, chroot, mounts) and Debian's package mirror. Not part of CI: CI already
# runs on a fresh clone, but on a machine that has more than plain bookworm.
# The base root is cached in $FRESH_CACHE (default /var/cache/gpugate-fresh) and reused; each run
# unpacks it into a throw-away directory ($FRESH_WORK, removed afterwards unless KEEP=1).
# Port 8443 on this machine must be free: the chroot shares its network.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
cache=${FRESH_CACHE:-/var/cache/gpugate-fresh}
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
work=${FRESH_WORK:-$(mktemp -d /tmp/gpugate-fresh.XXXXXX)}
base=$cache/bookworm-base.tar
base_packages=build-essential,cmake,git,make,python3,curl,ca-certificates

[ "$(id -u)" -eq 0 ] || { echo "fresh-check: needs root (debootstrap, chroot)" >&2; exit 2; }
command -v debootstrap >/dev/null || {
  echo "fresh-check: installing debootstrap"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends debootstrap
}

declare -a report=()
step() {  # step NAME COMMAND...: runs COMMAND, records NAME and its elapsed seconds
  local name=$1 start end rc=0
  shift
  echo "== fresh-check: $name"
  start=$(date +%s)
  "$@" || rc=$?
  end=$(date +%s)
  report+=("$(printf '%-44s %5d s  %s' "$name" $((end - start)) "$([ $rc -eq 0 ] && echo ok || echo "FAILED ($rc)")")")
  return $rc
}

print_report() {
  echo
  echo "fresh-check of ${commit:-$(git -C "$repo" rev-parse HEAD)} in $work/root"
  printf '%s\n' "${report[@]}"
}

make_base() {
  local root=$cache/base-root
  rm -rf "$root"
  mkdir -p "$cache"
  debootstrap --variant=minbase --include="$base_packages" bookworm "$root" "$mirror"
  chroot "$root" apt-get clean
  tar -C "$root" -cf "$base.tmp" .
  mv "$base.tmp" "$base"
  rm -rf "$root"
}

if [ ! -f "$base" ]; then
  step "debootstrap bookworm (cached for next time)" make_base
fi
[ "${1:-}" = "--prepare" ] && { print_report; exit 0; }

root=$work/root
mounted=()
server_pid=""
cleanup() {
  [ -n "$server_pid" ] && kill -- -"$server_pid" 2>/dev/null || true
  for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do umount -l "${mounted[i]}" 2>/dev/null || true; done
  if [ "${KEEP:-0}" = 1 ]; then echo "fresh-check: kept $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT

mkdir -p "$root"
step "unpack the base root" tar -C "$root" -xf "$base"
for m in proc sys dev dev/pts; do
  mount --bind "/$m" "$root/$m"
  mounted+=("$root/$m")
done
cp /etc/resolv.conf "$root/etc/resolv.conf"
# The machine's own trust anchors (a network whose proxy re-signs TLS, as npm's registry is
# reached here, needs its CA): a user's machine on that network has them too.
if compgen -G "/usr/local/share/ca-certificates/*.crt" >/dev/null; then
  mkdir -p "$root/usr/local/share/ca-certificates"
  cp /usr/local/share/ca-certificates/*.crt "$root/usr/local/share/ca-certificates/"
  chroot "$root" update-ca-certificates >/dev/null
fi

commit=$(git -C "$repo" rev-parse HEAD)
[ -z "$(git -C "$repo" status --porcelain)" ] ||
  echo "fresh-check: the work tree has uncommitted changes; checking the commit $commit only"
clone() {
  git clone --quiet --no-local "$repo" "$root/root/gpugate"
  git -C "$root/root/gpugate" checkout --quiet --detach "$commit"
}
step "git clone of $(git -C "$repo" rev-parse --short HEAD)" clone

root_env=(HOME=/root PATH=/usr/sbin:/usr/bin:/sbin:/bin TERM=dumb LANG=C.UTF-8)
in_root() { chroot "$root" /usr/bin/env -i "${root_env[@]}" bash -c "cd /root/gpugate && $1"; }

rc=0
# The README's order: `make run` first (it installs what is missing, builds, makes the development
# certificates and serves), then `make test` beside it while it serves.
serve() {
  setsid chroot "$root" /usr/bin/env -i "${root_env[@]}" \
    bash -c "cd /root/gpugate && exec make run" >"$work/make-run.log" 2>&1 &
  server_pid=$!
  for _ in $(seq 1 3600); do
    if in_root "curl -sf --cacert certs/dev/ca.crt https://127.0.0.1:8443/healthz" 2>/dev/null; then
      echo
      return 0
    fi
    kill -0 "$server_pid" 2>/dev/null || { cat "$work/make-run.log"; return 1; }
    sleep 1
  done
  cat "$work/make-run.log"
  return 1
}
step "make run, then curl https://127.0.0.1:8443/healthz" serve || rc=1

step "make test (while make run serves)" \
  in_root "set -o pipefail; make test 2>&1 | tee /root/make-test.log" || rc=1
# ctest's summary: how many passed, how many were skipped, and why (tools/print-skips.sh).
log=$root/root/make-test.log
summary=$(grep -E 'tests passed' "$log"; echo "$(grep -c '(Skipped)' "$log") tests skipped";
  sed -n '/^Skipped tests, by reason:/,$p' "$log")
if [ -n "$server_pid" ] && ! kill -0 "$server_pid" 2>/dev/null; then
  echo "fresh-check: make run stopped while make test ran:"
  tail -20 "$work/make-run.log"
  rc=1
fi

print_report
[ -n "${summary:-}" ] && { echo "make test said:"; echo "$summary" | head -80; }
exit $rc
