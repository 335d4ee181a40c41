#!/usr/bin/env bash
# The container test (issue 61): builds the kgc image from the Dockerfile and runs the compose
# stack for real (test/container/compose-stack.test.ts). Without a registry it first builds local
# stand-ins for the base images (scripts/container/standin-images.sh); Compose v2 is built from
# its Go module when no `docker compose` is installed. Needs a running Docker engine, or root and
# Debian's docker.io package (the engine is then started here with no bridge network and
# stopped at the end). Exit code 2: the engine cannot be had here (what is missing is printed).
# Usage: scripts/container-test.sh [jest options]   (npm run test:container)
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
cache_dir="${KGC_CACHE_DIR:-$HOME/.cache/kgc}"
image="${KGC_CONTAINER_IMAGE:-kgc:container-test}"
started_at=$SECONDS

missing() { printf 'container test: %s\n' "$*" >&2; exit 2; }

# The engine: one already running, or Debian's dockerd started here with host networking only.
started_engine=""
if ! docker info >/dev/null 2>&1; then
  command -v docker >/dev/null || missing "the docker CLI is missing (apt-get install docker.io)."
  command -v dockerd >/dev/null || missing "no Docker engine is running and dockerd is missing (apt-get install docker.io)."
  [[ $(id -u) -eq 0 ]] || missing "no Docker engine is running, and starting one needs root."
  engine_log="$(mktemp "${TMPDIR:-/tmp}/kgc-dockerd-XXXXXX.log")"
  dockerd --bridge=none --iptables=false --ip6tables=false >"$engine_log" 2>&1 &
  started_engine=$!
  for _ in $(seq 60); do docker info >/dev/null 2>&1 && break; sleep 0.5; done
  docker info >/dev/null 2>&1 || { tail -20 "$engine_log" >&2; missing "dockerd did not start (log above)."; }
  echo "container test: started dockerd (pid $started_engine, no bridge network)"
fi
stop_engine() {
  if [[ -n $started_engine ]]; then
    kill "$started_engine" 2>/dev/null
    wait "$started_engine" 2>/dev/null
  fi
}
trap stop_engine EXIT

# Compose v2: the installed plugin, else the pinned version built from its Go module.
if docker compose version >/dev/null 2>&1; then
  compose_bin="$(mktemp "${TMPDIR:-/tmp}/kgc-compose-XXXXXX")"
  printf '#!/bin/sh\nexec docker compose "$@"\n' >"$compose_bin"
  chmod +x "$compose_bin"
else
  compose_version="$(tr -d '[:space:]' < scripts/container/compose-version)"
  bash scripts/container/install-compose.sh "$cache_dir/compose-$compose_version" || exit 1
  compose_bin="$cache_dir/compose-$compose_version/docker-compose"
fi
"$compose_bin" version

# Base images: the official ones when present here, else local stand-ins.
build_args=()
if docker image inspect rust:1-bookworm node:24-bookworm node:24-bookworm-slim >/dev/null 2>&1; then
  echo "container test: building from the official base images"
else
  printf '\n==> Base images: local stand-ins (no registry)\n'
  args="$(bash scripts/container/standin-images.sh)" || exit 1
  read -r -a build_args <<<"$args"
fi

printf '\n==> Building %s from the Dockerfile\n' "$image"
build_started=$SECONDS
build_log="$(mktemp "${TMPDIR:-/tmp}/kgc-image-build-XXXXXX.log")"
docker build --network host "${build_args[@]}" -t "$image" . >"$build_log" 2>&1 || {
  tail -40 "$build_log" >&2
  echo "container test: the image did not build (log: $build_log)" >&2
  exit 1
}
echo "built in $((SECONDS - build_started)) s; $(docker image inspect --format '{{.Size}}' "$image" | awk '{printf "%.1f MiB", $1 / 1048576}')"

printf '\n==> The stack (test/container)\n'
[[ -d node_modules ]] || npm ci --no-audit --no-fund --loglevel=error
KGC_CONTAINER_IMAGE="$image" KGC_COMPOSE="$compose_bin" \
  npx --no-install jest -c test/container/jest.config.js --ci "$@"
status=$?
echo "container test: $([[ $status -eq 0 ]] && echo passed || echo failed) in $((SECONDS - started_at)) s"
exit $status
