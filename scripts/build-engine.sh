#!/usr/bin/env bash
# Builds the native engine (release) and puts the napi-rs addon where engine/node/index.js
# (the committed loader napi-rs generated) looks for it. Uses cargo only: the napi CLI's
# platform packages do not install reliably from a lockfile (npm optional-dependency bug).
# After changing the binding's API, regenerate index.js / index.d.ts with
# `npx @napi-rs/cli@3 build --platform --release` in engine/node and commit them.
# KGC_GPU=1 builds the binding with the GPU training backend (crate neptune_gpu, wgpu).
# KGC_TEST_EXPORTS=1 adds the exports that panic on purpose (the test build: scripts/test.sh).
# --locked: the committed Cargo.lock is what gets built, never a fresh resolution.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../engine"
features=()
[[ ${KGC_GPU:-} == 1 ]] && features+=(--features neptune_node/gpu)
[[ ${KGC_TEST_EXPORTS:-} == 1 ]] && features+=(--features neptune_node/test-exports)
cargo build --locked --release --quiet -p neptune_node -p neptune_core --bins --lib "${features[@]}"
case "$(uname -s)-$(uname -m)" in
  Linux-x86_64) name=linux-x64-gnu; lib=libneptune_node.so ;;
  Linux-aarch64) name=linux-arm64-gnu; lib=libneptune_node.so ;;
  Darwin-x86_64) name=darwin-x64; lib=libneptune_node.dylib ;;
  Darwin-arm64) name=darwin-arm64; lib=libneptune_node.dylib ;;
  *) echo "build-engine: unsupported platform $(uname -s)-$(uname -m)" >&2; exit 1 ;;
esac
cp "target/release/$lib" "node/neptune.$name.node.tmp"
mv "node/neptune.$name.node.tmp" "node/neptune.$name.node"
