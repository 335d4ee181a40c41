#!/usr/bin/env bash
# Builds Docker Compose v2 (`docker-compose`, the same program as the `docker compose` plugin)
# from its Go module at the pinned version (./compose-version) into <home-dir>/docker-compose.
# Debian 12 packages only Compose v1. Usage: install-compose.sh <home-dir>. Idempotent: an
# existing binary is left alone. The module comes from the Go module proxy, checked against the
# Go checksum database, and is built inside the module (its replace directives hold only there).
set -euo pipefail
home="${1:?usage: install-compose.sh <home-dir>}"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
version="$(tr -d '[:space:]' < "$here/compose-version")"
module="github.com/docker/compose/v2"

if [[ -x "$home/docker-compose" ]]; then exit 0; fi
command -v go >/dev/null || {
  echo "Go is missing: install Go 1.26 or newer (https://go.dev/dl) and retry; it builds Docker Compose v2." >&2
  exit 1
}

src="$(go mod download -json "$module@$version" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')"
[[ -d $src ]] || { echo "Docker Compose $version could not be downloaded from the Go module proxy." >&2; exit 1; }
mkdir -p "$home"
tmp="$home/docker-compose.partial.$$"
trap 'rm -f "$tmp"' EXIT
(cd "$src" && CGO_ENABLED=0 go build -buildvcs=false -trimpath \
  -ldflags "-s -w -X $module/internal.Version=$version" -o "$tmp" ./cmd)
mv "$tmp" "$home/docker-compose"
echo "Docker Compose $version ready in $home"
