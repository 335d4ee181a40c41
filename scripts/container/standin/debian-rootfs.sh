#!/usr/bin/env bash
# Makes the stand-in for Debian's bookworm base image without a registry: a minbase root file
# system from debootstrap (Debian's own mirror), trimmed as Debian's slim images are (no docs,
# man pages or locales; no apt lists or package cache), imported with `docker import`.
# Usage: debian-rootfs.sh <tag>. Runs as root (debootstrap needs it). Idempotent: an existing
# image with that tag is left alone.
set -euo pipefail
tag="${1:?usage: debian-rootfs.sh <tag>}"
mirror="${KGC_DEBIAN_MIRROR:-http://deb.debian.org/debian}"

if docker image inspect "$tag" >/dev/null 2>&1; then exit 0; fi
command -v debootstrap >/dev/null || {
  echo "debootstrap is missing: install it (apt-get install debootstrap) and retry." >&2
  exit 1
}

work="$(mktemp -d "${TMPDIR:-/tmp}/kgc-rootfs-XXXXXX")"
trap 'rm -rf "$work"' EXIT
root="$work/rootfs"
debootstrap --variant=minbase bookworm "$root" "$mirror" >"$work/debootstrap.log" 2>&1 || {
  tail -20 "$work/debootstrap.log" >&2
  exit 1
}

# What Debian's slim images leave out, kept out of later apt-get installs too.
cat >"$root/etc/dpkg/dpkg.cfg.d/docker-slim" <<'CFG'
path-exclude /usr/share/doc/*
path-include /usr/share/doc/*/copyright
path-exclude /usr/share/man/*
path-exclude /usr/share/info/*
path-exclude /usr/share/locale/*
path-exclude /usr/share/lintian/*
CFG
cat >"$root/etc/apt/apt.conf.d/docker-clean" <<'CFG'
APT::Keep-Downloaded-Packages "false";
Acquire::Languages "none";
CFG
find "$root/usr/share/doc" -mindepth 1 -not -name copyright -not -type d -delete
find "$root/usr/share/doc" -mindepth 1 -type d -empty -delete
rm -rf "$root"/usr/share/{man,info,locale,lintian}/* "$root"/var/lib/apt/lists/* \
  "$root"/var/cache/apt/*.bin "$root"/var/cache/apt/archives/*.deb "$root"/var/log/*.log

tar --numeric-owner -C "$root" -c . | docker import \
  --change 'CMD ["bash"]' --change 'LABEL org.kgc.stand-in=debian:bookworm' - "$tag" >/dev/null
echo "stand-in $tag built from debootstrap ($mirror)"
