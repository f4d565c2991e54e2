# Nexus image: the gateway app with only its production dependencies, the web client built in,
# running as the unprivileged `node` user. See docs/deployment.md.
#
# Node runs our TypeScript sources directly (type stripping), and Node refuses to strip types in
# files under node_modules. `pnpm deploy` copies workspace packages into node_modules, so the
# image keeps the workspace layout instead: packages/*/src beside a production-only install
# (`--prod --filter-prod`), exactly the closure of @nexus/gateway.

# Build with BuildKit (the default of current Docker; DOCKER_BUILDKIT=1 on Docker 20.10), which
# builds only the stages the image needs.
ARG NODE_IMAGE=node:24.21.0-trixie-slim
# Where pnpm and the dependency store come from: by default the `store-fetch` stage downloads
# them from the npm registry. A build that cannot reach the registry passes an image that holds
# pnpm on PATH and a store at /pnpm-store filled by `pnpm fetch` for this lockfile
# (tests/stack/docker/build-base-images.sh makes one); every later stage is the same either way.
ARG PNPM_STORE_IMAGE=store-fetch

# ---- pnpm and the dependency store, from the lockfile alone (cached until it changes) --------
FROM ${NODE_IMAGE} AS store-fetch
ENV npm_config_fund=false npm_config_audit=false npm_config_update_notifier=false
RUN npm install --global pnpm@12.21.0 && npm cache clean --force
WORKDIR /src
COPY pnpm-lock.yaml pnpm-workspace.yaml .npmrc ./
# pnpm-workspace.yaml's patchedDependencies: `pnpm fetch` refuses to run without the patch files.
COPY patches ./patches
RUN pnpm fetch --store-dir /pnpm-store

FROM ${PNPM_STORE_IMAGE} AS store
ENV CI=true npm_config_store_dir=/pnpm-store
WORKDIR /src
RUN pnpm config set store-dir /pnpm-store

# ---- the browser client: apps/web/dist ---------------------------------------------------------
FROM store AS web
COPY . .
RUN pnpm install --offline --frozen-lockfile --filter @nexus/web --filter @nexus/protocol \
  && pnpm --filter @nexus/web build

# ---- production dependencies of the gateway, and the sources of every package it uses --------
# The local transformers embedder (ONNX Runtime, ~450 MB) is an add-on, left out unless asked for:
# `docker build --build-arg NEXUS_EMBEDDER=transformers .` adds it (the root's production
# dependencies, `nexus...`) for NEXUS_EMBEDDING_PROVIDER=transformers.
FROM store AS prod
ARG NEXUS_EMBEDDER=""
COPY . .
RUN set -e; filters="--filter-prod @nexus/gateway..."; \
  if [ "$NEXUS_EMBEDDER" = "transformers" ]; then filters="$filters --filter-prod nexus..."; \
  elif [ -n "$NEXUS_EMBEDDER" ]; then echo "NEXUS_EMBEDDER: only 'transformers' is an add-on" >&2; exit 1; fi; \
  pnpm install --offline --frozen-lockfile --prod $filters \
  && mkdir /out \
  && cp -a package.json pnpm-workspace.yaml node_modules /out/ \
  && pnpm $filters exec sh -c \
    '[ "$PWD" = /src ] && exit 0; dest="/out/${PWD#/src/}"; mkdir -p "$dest" && cp -a package.json src "$dest"/ && for extra in bin node_modules; do if [ -d $extra ]; then cp -a $extra "$dest"/; fi; done' \
  && find /out/packages /out/apps -name '*.test.ts' -delete \
  && sh scripts/prune-production-install.sh /out/node_modules/.pnpm

# ---- Node's runtime alone: the Node image without what only builds and installs need -----------
# The official image carries npm, corepack, yarn and Node's C headers (about 80 MB) beside the
# `node` binary; the process never reads them. Deleting them in a later layer would not shrink
# the image, so the runtime starts from scratch with a copy of this stage's file system.
FROM ${NODE_IMAGE} AS node-runtime
RUN rm -rf /usr/local/include/node /usr/local/lib/node_modules /usr/local/bin/npm /usr/local/bin/npx \
    /usr/local/bin/corepack /usr/local/bin/yarn /usr/local/bin/yarnpkg /opt/yarn-* \
    /usr/local/share/doc/node /usr/local/share/man/man1/node.1 /usr/local/share/systemtap/tapset/node.stp \
  && node -e 'process.exit(0)' && id node >/dev/null

# ---- runtime ------------------------------------------------------------------------------------
FROM scratch AS runtime
COPY --from=node-runtime / /
# An 8 MB young generation and a 192 MB old-space limit keep the process near 120 MB idle and
# under 200 MB under load (the young generation's size is the CPU/memory trade-off), and two malloc arenas keep V8's background threads from each holding
# freed memory (docs/deployment.md, "Memory"); raise the limit with -e NODE_OPTIONS=….
ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    NODE_ENV=production \
    NODE_OPTIONS="--max-semi-space-size=8 --max-old-space-size=192" \
    MALLOC_ARENA_MAX=2 \
    NEXUS_HOST=0.0.0.0 \
    NEXUS_PORT=8787 \
    NEXUS_DATA_DIR=/data \
    NEXUS_LOG_PRETTY=false
WORKDIR /app
# Sources and dependencies stay owned by root: the process can read them, never change them.
COPY --from=prod /out/ ./
COPY --from=web /src/apps/web/dist/ ./apps/web/dist/
RUN install -d -o node -g node -m 0700 /data
# Node's compile cache (see apps/gateway/bin/nexus.mjs), filled here once so every start skips
# the TypeScript stripper: the CLI through `config check`, then every module the CLI imports only
# when it needs it (roles, commands, providers, channels); read-only at run time like the rest of
# /app. Then the pruned tokenizer must still count exactly (or counts would fall back to chars/4).
RUN NEXUS_DATA_DIR=/tmp/warm-up node apps/gateway/bin/nexus.mjs config check >/dev/null \
  && node apps/gateway/bin/fill-compile-cache.mjs \
  && node --input-type=module -e "const { createTokenCounter } = await import('./packages/limits-kit/src/index.ts'); \
    const counter = createTokenCounter(); if (counter.count('hello world') !== 2 || !counter.exact) process.exit(1);" \
  && rm -rf /tmp/warm-up && chmod -R a+rX node_modules/.cache
USER node
VOLUME ["/data"]
EXPOSE 8787
# Slim images have no curl: Node's own fetch probes /ready (gateway and worker: 200 once serving
# and Redis is reached), or /health for the memory service, which has no /ready.
HEALTHCHECK --interval=10s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "const u='http://127.0.0.1:'+(process.env.NEXUS_PORT||8787)+'/';fetch(u+'ready').then(r=>r.status===404?fetch(u+'health'):r).then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
ENTRYPOINT ["node", "apps/gateway/bin/nexus.mjs"]
CMD ["start"]
