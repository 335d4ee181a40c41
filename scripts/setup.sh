#!/usr/bin/env bash
# Everything a fresh machine needs before `kgc` runs: Java 17 + Maven and Chromium (apt-get when root),
# npm packages, the native engine, the TypeScript build, the Neo4j jars from Maven Central, and
# for the tests (KGC_TEST_SERVERS=1) their S3 server (SeaweedFS, built from its Go module; needs
# Go 1.26) and the container test's Docker engine and debootstrap (apt-get, as root).
# Idempotent and quiet when there is nothing to do. With KGC_GPU=1 the engine is built with its
# GPU backend (wgpu) and a Vulkan driver is installed when none is (Mesa's, whose software
# device lavapipe runs the GPU kernels on the CPU: what the tests use without a GPU).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

step() { printf '\n==> %s\n' "$*"; }
die() { printf 'setup: %s\n' "$*" >&2; exit 1; }

apt_install() {
  if [[ $(id -u) -ne 0 ]] || ! command -v apt-get >/dev/null; then
    die "$1 is missing: install $2 (e.g. sudo apt-get install $2) and rerun."
  fi
  step "Installing $2 with apt-get"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq "$2" >/dev/null
}

has_java_17_or_21() {
  local bin
  for bin in "${JAVA_HOME:-/nonexistent}/bin/java" java /usr/lib/jvm/*{17,21}*/bin/java; do
    if "$bin" -version 2>&1 | grep -Eq 'version "(17|21)[."]'; then return 0; fi
  done 2>/dev/null
  return 1
}

has_java_17_or_21 || apt_install "Java 17" openjdk-17-jre-headless
command -v mvn >/dev/null || apt_install "Maven" maven
# The admin page's browser tests (test/e2e/admin-*.test.ts) drive Debian's chromium.
[[ -x ${CHROMIUM_PATH:-/usr/bin/chromium} ]] || apt_install "Chromium (the browser tests)" chromium
command -v cargo >/dev/null || die "Rust (cargo) is missing: install it with rustup (https://rustup.rs) and rerun."
command -v node >/dev/null || die "Node.js is missing: install Node.js 24 LTS (20 or newer runs) and rerun."
if [[ ${KGC_GPU:-} == 1 && $(uname -s) == Linux ]]; then
  compgen -G '/usr/lib/*/libvulkan.so.1' >/dev/null || compgen -G '/usr/lib/libvulkan.so.1' >/dev/null \
    || apt_install "The Vulkan loader" libvulkan1
  compgen -G '/usr/share/vulkan/icd.d/*.json' >/dev/null \
    || apt_install "A Vulkan driver" mesa-vulkan-drivers
fi

if [[ ! -d node_modules || package-lock.json -nt node_modules/.package-lock.json ]]; then
  step "Installing npm packages (npm ci)"
  npm ci --no-audit --no-fund --loglevel=error
fi

if [[ -f engine/node/package.json ]]; then
  step "Building the native engine (release$([[ ${KGC_GPU:-} == 1 ]] && echo ', GPU backend'))"
  bash scripts/build-engine.sh
fi

step "Compiling TypeScript"
npm run --silent build

cache_dir="${KGC_CACHE_DIR:-$HOME/.cache/kgc}"
version="$(sed -n 's:.*<neo4j.version>\(.*\)</neo4j.version>.*:\1:p' scripts/neo4j/pom.xml)"
if [[ ! -f "$cache_dir/neo4j-$version/.complete" ]]; then
  step "Fetching Neo4j $version from Maven Central"
fi
bash scripts/neo4j/fetch.sh "$cache_dir/neo4j-$version"

# The container test (scripts/container-test.sh, run by scripts/test.sh): Debian's Docker engine
# and debootstrap (its stand-in base images), installed as root; elsewhere that test says what
# is missing and is skipped.
if [[ ${KGC_TEST_SERVERS:-} == 1 && $(id -u) -eq 0 ]] && command -v apt-get >/dev/null; then
  command -v dockerd >/dev/null || apt_install "Docker (the container test)" docker.io
  command -v debootstrap >/dev/null || apt_install "debootstrap (the container test's base images)" debootstrap
fi

# The S3-compatible server of the model-store tests (test/support/test-s3.ts), built once per
# machine into the cache; only for the tests (scripts/test.sh sets KGC_TEST_SERVERS=1).
if [[ ${KGC_TEST_SERVERS:-} == 1 ]]; then
  seaweedfs_version="$(tr -d '[:space:]' < scripts/seaweedfs/version)"
  if [[ ! -x "$cache_dir/seaweedfs-$seaweedfs_version/weed" ]]; then
    step "Building SeaweedFS $seaweedfs_version from its Go module (the tests' S3 server; minutes, once)"
  fi
  bash scripts/seaweedfs/install.sh "$cache_dir/seaweedfs-$seaweedfs_version"
fi
echo "setup: ready"
