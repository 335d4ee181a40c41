#!/usr/bin/env bash
# Prints the path of a Node 24 LTS binary for CI's second run of the API and end-to-end tests,
# installing the `node` package from the npm registry (it carries the official binary) into
# ${KGC_CACHE_DIR:-~/.cache/kgc}/node24 the first time. Idempotent: no network once installed.
set -euo pipefail
dir="${KGC_CACHE_DIR:-$HOME/.cache/kgc}/node24"
bin="$dir/node_modules/node/bin/node"
if [[ ! -x $bin ]] || [[ $("$bin" --version 2>/dev/null) != v24.* ]]; then
  rm -rf "$dir.partial"
  mkdir -p "$dir.partial"
  npm install --prefix "$dir.partial" --no-audit --no-fund --no-save --loglevel=error node@24 >&2
  [[ $("$dir.partial/node_modules/node/bin/node" --version) == v24.* ]] \
    || { echo "node24: the installed node is not Node 24" >&2; exit 1; }
  rm -rf "$dir"
  mv "$dir.partial" "$dir"
fi
echo "$bin"
