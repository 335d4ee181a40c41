#!/usr/bin/env bash
# The binding's committed loader and types (engine/node/index.js, index.d.ts) must be what
# napi-rs generates from its source: this builds the binding with the napi CLI into a temporary
# folder and compares. `--write` updates the committed files instead (after changing the API).
# The build has no features, as a production build (Dockerfile) has none: the types are the
# production API, and the addon is loaded to check that the test-only panic exports (feature
# test-exports) are absent from it.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../engine/node"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
# The napi CLI runs through npx (pinned), not as a dependency: its platform packages do not
# install reliably from a lockfile.
if ! npx --yes -p @napi-rs/cli@3.10.12 napi build --platform --release --no-const-enum --output-dir "$out" \
  --js index.js --dts index.d.ts -- --locked >"$out/build.log" 2>&1; then
  cat "$out/build.log"
  exit 1
fi
addon="$(find "$out" -maxdepth 1 -name '*.node' | head -n 1)"
if ! node -e '
  const m = { exports: {} };
  process.dlopen(m, process.argv[1]);
  const leaked = Object.keys(m.exports).filter((name) => /panic/i.test(name));
  if (typeof m.exports.presets !== "function") throw new Error("the addon did not load its exports");
  if (leaked.length > 0) {
    console.error(`a production build exports ${leaked.join(", ")}: keep them behind the test-exports feature`);
    process.exit(1);
  }
' "$addon"; then
  exit 1
fi
echo "a production build carries no test-only exports"
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
