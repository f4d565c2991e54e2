import { createServer, type Server } from 'node:http';
import { requestPath } from '@nexus/limits-kit';
import { NexusError } from '@nexus/protocol';
import { applyConnectionLimit, httpServerOptions } from '../http/apply-http-limits.ts';
import { createChannelsApi } from '../http/channels-api.ts';
import { guardRequestListener } from '../http/guard-request-listener.ts';
import { createHttpHandler } from '../http/http-handler.ts';
import { createPairingApi } from '../http/pairing-api.ts';
import { createPersonMemoryApi } from '../http/person-memory-api.ts';
import { refuseBadTarget } from '../http/refuse-bad-target.ts';
import { createRemindersApi } from '../http/reminders-api.ts';
import { watchDataVolume } from '../http/watch-data-volume.ts';
import { createWebConversationsApi } from '../http/web-conversations-api.ts';
import { createWebInvitesApi } from '../http/web-invites-api.ts';
import { webSocketUpgrade } from '../http/web-socket-upgrade.ts';
import { createWebUploadsApi } from '../http/web-uploads-api.ts';
import { loadStaticFiles } from '../web/static-files.ts';
import type { GatewayParts, GatewayState } from './gateway-parts.ts';
import { gatewayReadiness } from './gateway-readiness.ts';

/**
 * The gateway's HTTP server, not yet listening: the APIs behind the token, platform webhooks, the
 * web socket, health, metrics and the web client's files, each route answering or refusing.
 */
export async function createGatewayServer(
  parts: GatewayParts,
  state: GatewayState,
  webDistDir: string,
): Promise<Server> {
  const { config, logger, core, web, metrics, token, accessStore, platformChannels, postRoutes } = parts;
  const staticFiles = await loadStaticFiles(webDistDir);
  if (staticFiles.size === 0) logger.warn({}, 'web client not built: run `pnpm build`');
  const memorySearch = watchMemorySearch(parts.memory.service, logger);
  const handleHttp = createHttpHandler({
    staticFiles,
    memorySearch,
    readiness: gatewayReadiness(
      parts,
      state,
      watchDataVolume({ dataDir: config.dataDir, minFreeMb: config.dataMinFreeMb, logger }),
    ),
    startedAt: parts.startedAt,
    now: parts.now,
    ...(config.metrics?.token ? { metricsToken: config.metrics.token } : {}),
    metrics: async () => {
      const stats = core.stats();
      metrics.activeTurns.set(stats.activeTurns);
      metrics.queuedTurns.set(stats.queuedTurns);
      metrics.turnsWaitingForSlot.set(stats.turnsWaitingForSlot);
      metrics.webConnections.set(web.connectionCount());
      return { contentType: metrics.registry.contentType, body: await metrics.registry.metrics() };
    },
  });
  // A plain GET on the socket path lets the web client check its token before upgrading.
  const pairingApi = createPairingApi({ store: accessStore, token, logger });
  const remindersApi = createRemindersApi({ store: parts.schedules.store, token, logger });
  const personMemoryApi = createPersonMemoryApi({
    memory: parts.memory.service,
    store: accessStore,
    token,
    logger,
  });
  const webConversationsApi = createWebConversationsApi({
    sessionStore: parts.sessionStore,
    store: accessStore,
    forgetReplay: (conversationId, clientId) => web.forgetConversation(conversationId, clientId),
    notify: (clientId, frame) => web.sendToClient(clientId, frame),
    channelName: web.name,
    token,
    logger,
  });
  const webInvitesApi = createWebInvitesApi({
    sessions: parts.webSession.sessions,
    token,
    endConnections: (clientId) => web.closeClient(clientId),
    logger,
  });
  const uploads = parts.webUploads.uploads;
  const webUploadsApi = createWebUploadsApi({ uploads, token, maxBytes: config.media.maxBytes, logger });
  const channelsApi = createChannelsApi({
    token,
    channels: () => [web, ...platformChannels],
    relink: async (name) => {
      const channel = platformChannels.find((candidate) => candidate.name === name);
      if (state.stopping || !channel) {
        throw new NexusError({
          code: 'channel_unavailable',
          message: `The ${name} channel cannot start now.`,
        });
      }
      await channel.start({ sink: core.intake });
    },
    toolServers: parts.tools.mcpStatus,
    logger,
  });
  const server = createServer(
    httpServerOptions(config.server),
    guardRequestListener((request, response) => {
      if (refuseBadTarget(request, response)) return;
      parts.webSession.admit(request);
      if (
        parts.webSession.handle(request, response) ||
        webInvitesApi(request, response) ||
        pairingApi(request, response) ||
        remindersApi(request, response) ||
        webUploadsApi(request, response) ||
        webConversationsApi(request, response) ||
        channelsApi(request, response) ||
        personMemoryApi(request, response)
      )
        return;
      const postRoute = request.method === 'POST' ? postRoutes.get(requestPath(request) ?? '') : undefined;
      if (postRoute) postRoute(request, response);
      else if (!web.handleRequest(request, response)) handleHttp(request, response);
    }, logger),
  );
  applyConnectionLimit(server, config.server, logger);
  server.on('upgrade', webSocketUpgrade(parts, state, logger));
  return server;
}

type MemorySearchState = { search: string; embedder?: string; reason?: string };

/**
 * Which memory search is on and why, for `/health`: undefined until the memory service has said
 * (it may be a remote service that is still starting). Asked again at most once a second when
 * `/health` is read, since it changes at run time (a background re-index reports progress, then
 * turns hybrid); a read returns what the last answer said.
 */
function watchMemorySearch(
  memory: GatewayParts['memory']['service'],
  logger: GatewayParts['logger'],
): () => MemorySearchState | undefined {
  let state: MemorySearchState | undefined;
  let askedAt = 0;
  let asking = false;
  let warned = false;
  const ask = () => {
    askedAt = Date.now();
    asking = true;
    memory
      .health()
      .then(
        ({ search, embedder, reason }) => {
          state = { search, ...(embedder ? { embedder } : {}), ...(reason ? { reason } : {}) };
        },
        (error: unknown) => {
          if (!warned) logger.warn({ err: error }, 'memory: health unknown');
          warned = true;
        },
      )
      .finally(() => {
        asking = false;
      });
  };
  ask();
  return () => {
    if (!asking && Date.now() - askedAt >= 1_000) ask();
    return state;
  };
}
