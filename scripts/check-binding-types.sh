#!/usr/bin/env bash
# The binding's committed loader and types (engine/node/index.js, index.d.ts) must be what
# napi-rs generates from its source: this builds the binding with the napi CLI into a temporary
# folder and compares. `--write` updates the committed files instead (after changing the API).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../engine/node"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
# The napi CLI runs through npx (pinned), not as a dependency: its platform packages do not
# install reliably from a lockfile.
if ! npx --yes -p @napi-rs/cli@3.10.12 napi build --platform --release --no-const-enum --output-dir "$out" \
  --js index.js --dts index.d.ts >"$out/build.log" 2>&1; then
  cat "$out/build.log"
  exit 1
fi
if [[ ${1:-} == --write ]]; then
  cp "$out/index.d.ts" "$out/index.js" .
  echo "wrote engine/node/index.d.ts and index.js"
  exit 0
fi
for file in index.d.ts index.js; do
  if ! diff -u "$file" "$out/$file"; then
    echo "engine/node/$file differs from the binding's source: run bash scripts/check-binding-types.sh --write" >&2
    exit 1
  fi
done
echo "binding types match the source"
