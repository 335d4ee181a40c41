#!/usr/bin/env bash
# Checks a Neo4j lib/ against the pinned sha256 of every jar (scripts/neo4j/jars.sha256): each
# listed jar present with its checksum, and no jar that is not listed (the server loads lib/*).
# Usage: verify-jars.sh <lib-dir>. Exit 1 with the offending jars named.
# After a deliberate version bump, regenerate the list from a fetched lib/ whose jars were checked
# against Maven Central's published .sha1 files: (cd lib && sha256sum *.jar | sort -k2).
set -euo pipefail
lib="${1:?usage: verify-jars.sh <lib-dir>}"
list="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/jars.sha256"

sha256() {
  if command -v sha256sum >/dev/null; then sha256sum "$@"; else shasum -a 256 "$@"; fi
}

failed=()
while read -r sum jar; do
  if [[ ! -f "$lib/$jar" ]]; then
    failed+=("$jar (missing)")
  elif [[ $(sha256 "$lib/$jar" | cut -d' ' -f1) != "$sum" ]]; then
    failed+=("$jar (sha256 differs from the pinned one)")
  fi
done <"$list"
for path in "$lib"/*.jar; do
  [[ -e $path ]] || continue
  grep -q "  $(basename "$path")\$" "$list" || failed+=("$(basename "$path") (not in the pinned list)")
done
if ((${#failed[@]} > 0)); then
  {
    echo "Neo4j jar check failed in $lib against scripts/neo4j/jars.sha256:"
    printf '  %s\n' "${failed[@]}"
    echo "A download was corrupted or tampered with: delete ~/.m2/repository/org/neo4j (or the jars named) and rerun setup."
  } >&2
  exit 1
fi
