#!/usr/bin/env bash
# Makes a Docker Engine and Debian's docker-compose available for `pnpm test:stack`: installs
# Debian's docker.io, docker-compose and debootstrap when missing, and starts dockerd (as root,
# logging to $NEXUS_CI_CACHE/docker/dockerd.log) when no daemon answers. Idempotent.
set -euo pipefail

CACHE_DIR="${NEXUS_CI_CACHE:-$HOME/.cache/nexus-ci}"
# Debian's docker.io ships client and daemon of one version; a newer client elsewhere on PATH
# (without buildx) could not build with BuildKit, so the stack uses this one.
DOCKER=/usr/bin/docker

if [ "$(id -u)" -eq 0 ]; then SUDO=""; else SUDO="sudo"; fi

missing=()
[ -x /usr/sbin/dockerd ] && [ -x "$DOCKER" ] || missing+=(docker.io)
command -v docker-compose >/dev/null 2>&1 || missing+=(docker-compose)
command -v debootstrap >/dev/null 2>&1 || missing+=(debootstrap)
if [ "${#missing[@]}" -gt 0 ]; then
  echo "installing ${missing[*]} from Debian's packages"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

if ! $SUDO "$DOCKER" info >/dev/null 2>&1; then
  mkdir -p "$CACHE_DIR/docker"
  echo "starting dockerd (log: $CACHE_DIR/docker/dockerd.log)"
  # setsid: the daemon outlives this script and the CI step that started it.
  $SUDO setsid /usr/sbin/dockerd >>"$CACHE_DIR/docker/dockerd.log" 2>&1 < /dev/null &
  for _ in $(seq 1 60); do
    $SUDO "$DOCKER" info >/dev/null 2>&1 && break
    sleep 1
  done
  if ! $SUDO "$DOCKER" info >/dev/null 2>&1; then
    echo "dockerd did not start within 60 s; its log:" >&2
    tail -n 30 "$CACHE_DIR/docker/dockerd.log" >&2
    exit 1
  fi
fi
"$DOCKER" version --format 'docker engine {{.Server.Version}}'
docker-compose version --short | sed 's/^/docker-compose /'
