#!/usr/bin/env bash
# Assembles a Neo4j home (lib/ with every runtime jar) from Maven Central.
# Usage: fetch.sh <home-dir>. Idempotent: a complete home is left alone; Maven's ~/.m2 cache
# means no network after the first fetch on a machine. Every jar is checked against its pinned
# sha256 (jars.sha256) before the home is marked complete.
set -euo pipefail
home="${1:?usage: fetch.sh <home-dir>}"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
version="$(sed -n 's:.*<neo4j.version>\(.*\)</neo4j.version>.*:\1:p' "$here/pom.xml")"

if [[ -f "$home/.complete" ]]; then exit 0; fi
command -v mvn >/dev/null || { echo "Maven is missing: install it (apt-get install maven) and retry." >&2; exit 1; }

tmp="$home.partial.$$"
rm -rf "$tmp"
mkdir -p "$tmp/lib"
mvn -q -B -f "$here/pom.xml" dependency:copy-dependencies \
  -DincludeScope=runtime -DoutputDirectory="$tmp/lib"
for jar in "neo4j-bolt-$version.jar" "neo4j-server-$version.jar"; do
  [[ -f "$tmp/lib/$jar" ]] || { echo "Neo4j fetch incomplete: $jar missing" >&2; exit 1; }
done
bash "$here/verify-jars.sh" "$tmp/lib" || { rm -rf "$tmp"; exit 1; }
touch "$tmp/.complete"
rm -rf "$home"
mkdir -p "$(dirname "$home")"
# Rename is atomic: a concurrent or interrupted fetch never leaves a half-filled home.
mv "$tmp" "$home"
echo "Neo4j $version ready in $home"
