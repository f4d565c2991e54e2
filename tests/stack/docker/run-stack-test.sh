#!/usr/bin/env bash
# `pnpm test:stack`: builds the Nexus image from the project's Dockerfile and runs the default
# docker-compose stack through tests/stack/compose-stack.docker.test.ts. Installs and starts
# Docker when missing (ensure-docker.sh), builds the images no registry can provide here
# (build-base-images.sh), and removes its compose project (containers, network, volumes) and its
# image tag on every exit, failed or not. Bounded: the whole run is killed after
# NEXUS_STACK_TIMEOUT seconds (default 1500).
set -euo pipefail
cd "$(dirname "$0")/../../.."

DOCKER=/usr/bin/docker
export NEXUS_STACK_PROJECT="nexus-stack-$(date +%s)-$$"
export NEXUS_STACK_IMAGE="nexus:stack-test-$$"
export NEXUS_STACK_REPO="$PWD"
timeout_s="${NEXUS_STACK_TIMEOUT:-1500}"
log() { printf '[test:stack] %s\n' "$*"; }

cleanup() {
  status=$?
  docker-compose -p "$NEXUS_STACK_PROJECT" -f docker-compose.yml -f tests/stack/docker/compose.test.yml \
    --profile workers down --volumes --remove-orphans --timeout 5 >/dev/null 2>&1 || true
  "$DOCKER" rmi "$NEXUS_STACK_IMAGE" >/dev/null 2>&1 || true
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

started=$(date +%s)
bash tests/stack/docker/ensure-docker.sh
store_image=$(bash tests/stack/docker/build-base-images.sh | tail -n 1)
log "base images ready after $(( $(date +%s) - started )) s"

build_started=$(date +%s)
DOCKER_BUILDKIT=1 timeout "$timeout_s" "$DOCKER" build --progress=plain \
  --build-arg NODE_IMAGE=nexus-ci/node:24 --build-arg PNPM_STORE_IMAGE="$store_image" \
  -t "$NEXUS_STACK_IMAGE" . >"${TMPDIR:-/tmp}/nexus-stack-build.log" 2>&1 \
  || { tail -n 40 "${TMPDIR:-/tmp}/nexus-stack-build.log" >&2; log "docker build failed"; exit 1; }
size=$("$DOCKER" image inspect --format '{{.Size}}' "$NEXUS_STACK_IMAGE")
log "image $NEXUS_STACK_IMAGE built in $(( $(date +%s) - build_started )) s: $(( size / 1000000 )) MB ($size bytes)"

timeout --kill-after=30 "$timeout_s" pnpm exec vitest run --config tests/stack/vitest.docker.config.ts
log "done in $(( $(date +%s) - started )) s"
