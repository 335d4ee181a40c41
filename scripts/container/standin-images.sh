#!/usr/bin/env bash
# Builds local stand-ins for the Dockerfile's base images where no registry can be reached:
#   kgc-standin/debian:bookworm        Debian bookworm minbase (debootstrap, docker import)
#   kgc-standin/node:24-bookworm-slim  + Node 24 (the npm registry's `node` package) and npm
#   kgc-standin/node:24-bookworm       + the compilers the build uses (Debian packages)
#   kgc-standin/rust:1-bookworm        + this machine's Rust toolchain
# The kgc Dockerfile takes them as build arguments (RUST_IMAGE, NODE_BUILD_IMAGE,
# NODE_PACKAGES_IMAGE, NODE_RUNTIME_IMAGE); without them it builds from the official images. Idempotent: an image
# already built is kept (KGC_STANDIN_REBUILD=1 rebuilds them all). Prints the build arguments.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
debian=kgc-standin/debian:bookworm
node_slim=kgc-standin/node:24-bookworm-slim
node_build=kgc-standin/node:24-bookworm
rust=kgc-standin/rust:1-bookworm

if [[ ${KGC_STANDIN_REBUILD:-} == 1 ]]; then
  docker image rm -f "$rust" "$node_build" "$node_slim" "$debian" >/dev/null 2>&1 || true
fi
exists() { docker image inspect "$1" >/dev/null 2>&1; }
work="$(mktemp -d "${TMPDIR:-/tmp}/kgc-standin-XXXXXX")"
trap 'rm -rf "$work"' EXIT

bash "$here/standin/debian-rootfs.sh" "$debian" >&2

if ! exists "$node_slim"; then
  ctx="$work/node"
  mkdir -p "$ctx"
  node24="$(bash "$repo/scripts/node24.sh")"
  cp "$node24" "$ctx/node"
  # npm as Node 24 ships it (its major version), from the npm registry.
  npm_version="$("$node24" -e 'console.log(process.versions.node.split(".")[0] >= 24 ? 11 : 10)')"
  (cd "$ctx" && npm pack --silent "npm@$npm_version" >/dev/null && tar -xzf npm-*.tgz && mv package npm && rm npm-*.tgz)
  docker build --network host --build-arg "BASE=$debian" -t "$node_slim" \
    -f "$here/standin/node.Dockerfile" "$ctx" >&2
  echo "stand-in $node_slim built" >&2
fi

if ! exists "$node_build"; then
  ctx="$work/node-build"
  mkdir -p "$ctx/ca-certificates"
  if compgen -G '/usr/local/share/ca-certificates/*.crt' >/dev/null; then
    cp /usr/local/share/ca-certificates/*.crt "$ctx/ca-certificates/"
  fi
  docker build --network host --build-arg "BASE=$node_slim" -t "$node_build" \
    -f "$here/standin/node-build.Dockerfile" "$ctx" >&2
  echo "stand-in $node_build built" >&2
fi

if ! exists "$rust"; then
  command -v rustup >/dev/null || { echo "rustup is missing: the Rust stand-in copies its toolchain." >&2; exit 1; }
  toolchain="$(cd "$repo/engine" && rustup show active-toolchain | awk '{print $1}')"
  rustup_home="${RUSTUP_HOME:-$HOME/.rustup}"
  cargo_home="${CARGO_HOME:-$HOME/.cargo}"
  ctx="$work/rust"
  mkdir -p "$ctx/rustup/toolchains" "$ctx/cargo-bin"
  # Hard links where the file system allows (no copy of a gigabyte), without the docs.
  cp -al "$rustup_home/toolchains/$toolchain" "$ctx/rustup/toolchains/" 2>/dev/null \
    || cp -a "$rustup_home/toolchains/$toolchain" "$ctx/rustup/toolchains/"
  rm -rf "$ctx/rustup/toolchains/$toolchain/share/doc"
  printf 'version = "12"\ndefault_toolchain = "%s"\nprofile = "minimal"\n' "$toolchain" >"$ctx/rustup/settings.toml"
  cp "$cargo_home/bin/rustup" "$ctx/cargo-bin/rustup"
  for tool in cargo rustc rustdoc cargo-clippy cargo-fmt clippy-driver rustfmt; do
    ln -s rustup "$ctx/cargo-bin/$tool"
  done
  docker build --network host --build-arg "BASE=$debian" -t "$rust" \
    -f "$here/standin/rust.Dockerfile" "$ctx" >&2
  echo "stand-in $rust built ($toolchain)" >&2
fi

# The production packages are installed on the build stand-in (it trusts this machine's CAs);
# both are Debian bookworm with the same Node, and only node_modules is copied out of it.
echo "--build-arg RUST_IMAGE=$rust --build-arg NODE_BUILD_IMAGE=$node_build" \
  "--build-arg NODE_PACKAGES_IMAGE=$node_build --build-arg NODE_RUNTIME_IMAGE=$node_slim"
