#!/usr/bin/env bash
# Runs every test after setup: lint and type checks, the Rust engine's tests, then Jest
# (unit + integration against one real Neo4j). Prints one summary line per runner and a total.
# The engine is built with its GPU backend, whose tests run on Mesa's software Vulkan device.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
export KGC_GPU=1
# The test build of the binding carries the exports that panic on purpose (engine-binding.test.ts);
# scripts/check-binding-types.sh checks that a production build does not.
export KGC_TEST_EXPORTS=1
# Setup also builds the servers only the tests start (the S3-compatible model store's).
export KGC_TEST_SERVERS=1
# The public benchmark datasets, when present beside the checkout (CI's layout): the GPU
# learning-curve test trains UMLS from there, the fixed workload FB15k-237.
if [[ -z ${KGC_DATASETS:-} && -d ../shared/datasets ]]; then
  KGC_DATASETS="$(cd ../shared/datasets && pwd)"
  export KGC_DATASETS
fi
bash scripts/setup.sh || exit 1

status=0
lint=passed
printf '\n==> Lint and type check\n'
npx --no-install eslint . || lint=failed
npx --no-install prettier --check . --log-level warn || lint=failed
npx --no-install tsc -p tsconfig.json --noEmit || lint=failed
npx --no-install tsc -p src/admin-ui/tsconfig.json || lint=failed
npx --no-install depcruise src --config .dependency-cruiser.cjs || lint=failed
# Run through npx, not installed: the registry here lacks some of its platform packages, which
# would leave package-lock.json out of step for `npm ci`.
npx --yes knip@6.44.2 || lint=failed
if [[ -f engine/Cargo.toml ]]; then
  # The Rust linters are rustup components; a minimal toolchain may lack them.
  for tool in fmt clippy; do
    cargo "$tool" --version >/dev/null 2>&1 || rustup component add "$([[ $tool == fmt ]] && echo rustfmt || echo clippy)"
  done
  (cd engine && cargo fmt --check) || lint=failed
  (cd engine && cargo clippy --locked --release -p neptune_core --all-targets --quiet -- -D warnings) || lint=failed
  (cd engine && cargo clippy --locked --release -p neptune_ann --all-targets --quiet -- -D warnings) || lint=failed
  # The binding's own test target cannot link (napi symbols come from node at load time).
  (cd engine && cargo clippy --locked --release -p neptune_node --features gpu,test-exports --quiet -- -D warnings) || lint=failed
  (cd engine && cargo clippy --locked --release -p neptune_gpu --all-targets --quiet -- -D warnings) || lint=failed
  # A serving build loads, scores and evaluates without the training code.
  (cd engine && cargo clippy --locked --release -p neptune_core --lib --no-default-features --quiet -- -D warnings) || lint=failed
  # The committed index.d.ts / index.js are what napi-rs generates from the binding's source.
  bash scripts/check-binding-types.sh || lint=failed
fi
[[ $lint == passed ]] || status=1

rust_passed=0; rust_failed=0
if [[ -f engine/Cargo.toml ]]; then
  printf '\n==> Rust engine tests (cargo test)\n'
  cargo_log="$(mktemp)"
  # The GPU tests run on the first Vulkan adapter (lavapipe here); XDG_RUNTIME_DIR keeps Mesa
  # from warning about it.
  (cd engine && XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-$(mktemp -d)}" \
    cargo test --locked -p neptune_core -p neptune_ann -p neptune_gpu --release 2>&1) | tee "$cargo_log"
  [[ ${PIPESTATUS[0]} -eq 0 ]] || status=1
  # On an AVX-512 machine the run above took the AVX-512 kernels (ours and gemm's); the core's
  # tests run again built without them, so the AVX2 code every AVX2 machine runs is tested too.
  if grep -qw avx512f /proc/cpuinfo; then
    printf '\n==> Rust engine tests on the AVX2 code paths (neptune_core without its avx512 feature)\n'
    (cd engine && cargo test --locked -p neptune_core --release --no-default-features \
      --features training --target-dir target/avx2 2>&1) | tee -a "$cargo_log"
    [[ ${PIPESTATUS[0]} -eq 0 ]] || status=1
  fi
  rust_passed=$(grep -Eo '[0-9]+ passed' "$cargo_log" | awk '{s+=$1} END {print s+0}')
  rust_failed=$(grep -Eo '[0-9]+ failed' "$cargo_log" | awk '{s+=$1} END {print s+0}')
fi

# A small fixed training workload whose rate is printed, never asserted (timings live in bench/).
fb="${KGC_DATASETS:-}/FB15k-237"
if [[ -x engine/target/release/neptune && -f "$fb/train.txt" ]]; then
  printf '\n==> Fixed workload: 20 FB15k-237 batches, reference settings (rate printed, not asserted)\n'
  engine/target/release/neptune train --dataset "$fb" --preset fb15k-237 --epochs 1 --eval-every 0 \
    --threads 2 --max-batches 20 2>/dev/null | grep -E '^timed' || echo "(workload did not run)"
fi

printf '\n==> Jest (unit, integration, e2e; one real Neo4j)\n'
jest_json="$(mktemp)"
npx --no-install jest --ci --json --outputFile="$jest_json" || status=1
read -r jest_passed jest_failed < <(node -e '
  const r = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
  console.log(r.numPassedTests, r.numFailedTests + r.numRuntimeErrorTestSuites);
' "$jest_json" 2>/dev/null || echo "0 1")

# Node 20 is past its end of life; the image runs Node 24 LTS. The API and end-to-end tests (HTTP,
# the CLI, the native addon, which is N-API and loads under both) run again under Node 24, its
# binary from the `node` package on the npm registry; on PATH too, so spawned CLIs use it.
printf '\n==> Jest under Node 24 (e2e: the API over HTTP and the CLI)\n'
node24_json="$(mktemp)"
node24_passed=0; node24_failed=1
if node24="$(bash scripts/node24.sh)"; then
  "$node24" --version
  PATH="$(dirname "$node24"):$PATH" "$node24" node_modules/jest/bin/jest.js test/e2e --ci \
    --selectProjects integration --json --outputFile="$node24_json" || status=1
  read -r node24_passed node24_failed < <(node -e '
    const r = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
    console.log(r.numPassedTests, r.numFailedTests + r.numRuntimeErrorTestSuites);
  ' "$node24_json" 2>/dev/null || echo "0 1")
else
  echo "Node 24 could not be installed from the npm registry" >&2
  status=1
fi

# The image and the compose stack, run for real (a few minutes once the base images exist).
# Skipped, with the reason, where no container engine can be had (exit code 2).
printf '\n==> The container test (the image and the compose stack)\n'
container_json="$(mktemp)"
container_passed=0; container_failed=0; container=passed
bash scripts/container-test.sh --json --outputFile="$container_json"
case $? in
  0) ;;
  2) container="skipped (no container engine here)" ;;
  *) container=failed; status=1 ;;
esac
if [[ $container != skipped* ]]; then
  read -r container_passed container_failed < <(node -e '
    const r = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
    console.log(r.numPassedTests, r.numFailedTests + r.numRuntimeErrorTestSuites);
  ' "$container_json" 2>/dev/null || echo "0 1")
fi

printf '\n==> Summary\n'
echo "lint and type check: $lint"
echo "cargo: $rust_passed passed, $rust_failed failed"
echo "jest: $jest_passed passed, $jest_failed failed"
echo "jest under Node 24 (e2e): $node24_passed passed, $node24_failed failed"
echo "container test: $container; $container_passed passed, $container_failed failed"
echo "total: $((rust_passed + jest_passed + node24_passed + container_passed)) passed, $((rust_failed + jest_failed + node24_failed + container_failed)) failed"
exit $status
