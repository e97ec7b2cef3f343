#!/usr/bin/env bash
# The two base images the Dockerfile names, made here instead of pulled (no registry is reached):
# debian:bookworm (debootstrap's default variant: apt, for the build stage) and
# debian:bookworm-slim (--variant=minbase, with documentation, manual pages and locales excluded
# from every package installed later, as Debian's slim images do), each imported into podman's
# store. One already there is kept. Needs root, debootstrap and Debian's mirror.
#
# usage: bash tools/image-bases.sh        (make image runs it)
# DEBIAN_MIRROR: the mirror (default: the first of apt's sources, else deb.debian.org)
set -euo pipefail
export CONTAINERS_CONF=${CONTAINERS_CONF:-$(cd "$(dirname "$0")" && pwd)/image/containers.conf}

mirror=${DEBIAN_MIRROR:-}
if [[ -z $mirror ]]; then
  mirror=$(awk '/^URIs:/ { print $2; exit }' /etc/apt/sources.list.d/debian.sources 2>/dev/null || true)
  [[ -n $mirror ]] || mirror=$(awk '$1 == "deb" && $2 ~ /^http/ { print $2; exit }' /etc/apt/sources.list 2>/dev/null || true)
  [[ -n $mirror ]] || mirror=http://deb.debian.org/debian
fi

make_base() {  # TAG [DEBOOTSTRAP OPTIONS...]
  local tag=$1 root start
  shift
  if podman image exists "$tag"; then
    echo "image-bases: $tag is in podman's store"
    return
  fi
  root=$(mktemp -d /var/tmp/gpugate-base.XXXXXX)
  start=$(date +%s)
  echo "image-bases: debootstrap $* bookworm from $mirror for $tag"
  nice debootstrap "$@" bookworm "$root" "$mirror" >"$root.log" 2>&1 ||
    { tail -n 20 "$root.log"; rm -rf "$root" "$root.log"; exit 1; }
  if [[ $tag == *-slim ]]; then
    cat >"$root/etc/dpkg/dpkg.cfg.d/slim" <<'CFG'
path-exclude /usr/share/doc/*
path-include /usr/share/doc/*/copyright
path-exclude /usr/share/man/*
path-exclude /usr/share/info/*
path-exclude /usr/share/locale/*
path-exclude /usr/share/lintian/*
CFG
    find "$root/usr/share/doc" -mindepth 1 ! -name copyright ! -type d -delete
    rm -rf "$root"/usr/share/{man,info,locale,lintian}/*
  fi
  rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/cache/apt/*.bin "$root"/var/lib/apt/lists/* \
    "$root"/var/log/bootstrap.log
  tar --numeric-owner -C "$root" -c . | podman import - "$tag" >/dev/null
  rm -rf "$root" "$root.log"
  echo "image-bases: $tag imported ($(podman image inspect "$tag" --format '{{.Size}}' | numfmt --to=iec) in $(($(date +%s) - start)) s)"
}

make_base debian:bookworm
make_base debian:bookworm-slim --variant=minbase
