#!/usr/bin/env bash
# Builds SeaweedFS's `weed` (the S3-compatible server the model-store tests start) from its Go
# module, at the pinned version (./version: a pseudo-version, as SeaweedFS's tags are not Go
# semver; `weed version` says 4.53), into <home-dir>/weed.
# Usage: install.sh <home-dir>. Idempotent: an existing binary is left alone. The module comes
# from the Go module proxy, checked against the Go checksum database (go.sum's guarantees), and
# builds offline after the first download. `go install weed@version` cannot build it: the module
# has replace directives, which only a build inside the module honours.
set -euo pipefail
home="${1:?usage: install.sh <home-dir>}"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
version="$(tr -d '[:space:]' < "$here/version")"
module="github.com/seaweedfs/seaweedfs"

if [[ -x "$home/weed" ]]; then exit 0; fi
command -v go >/dev/null || {
  echo "Go is missing: install Go 1.26 or newer (https://go.dev/dl) and retry; it builds the S3 server of the tests." >&2
  exit 1
}

src="$(go mod download -json "$module@$version" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')"
[[ -d $src ]] || { echo "SeaweedFS $version could not be downloaded from the Go module proxy." >&2; exit 1; }
mkdir -p "$home"
tmp="$home/weed.partial.$$"
trap 'rm -f "$tmp"' EXIT
# The module cache is read-only, so the build writes only to the Go build cache and $tmp.
(cd "$src" && go build -buildvcs=false -o "$tmp" ./weed)
# Rename is atomic: a concurrent or interrupted build never leaves a half-written binary.
mv "$tmp" "$home/weed"
echo "SeaweedFS $version ready in $home"
