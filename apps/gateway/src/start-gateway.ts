import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createWebSocketChannel, WEB_CHANNEL_NAME, type WebSocketChannel } from '@nexus/channel-websocket';
import type { WhatsAppSocketFactory } from '@nexus/channel-whatsapp';
import {
  createConversationNotifier,
  createNexusCore,
  createSqliteDailyTokenBudget,
  createSqliteSessionStore,
  type NexusCore,
} from '@nexus/core';
import { type Logger, NexusError, silentLogger } from '@nexus/protocol';
import { gatewayErasers } from './cli/gateway-erasers.ts';
import { createConfiguredAgent } from './composition/create-configured-agent.ts';
import { createGatewayAccess, openAccessStore } from './composition/create-gateway-access.ts';
import { createGatewayMedia } from './composition/create-gateway-media.ts';
import { createGatewayMemory } from './composition/create-gateway-memory.ts';
import { NOT_CONFIGURED_MESSAGE } from './composition/create-language-model.ts';
import { createPlatformChannels } from './composition/create-platform-channels.ts';
import type { GatewayConfig } from './config/gateway-config.ts';
import { chmodCommand, findLooseModes } from './data-dir/find-loose-modes.ts';
import { ensurePrivateDirectory, privateFilePath } from './data-dir/private-path.ts';
import { applyConnectionLimit, httpServerOptions } from './http/apply-http-limits.ts';
import { createChannelsApi } from './http/channels-api.ts';
import { guardRequestListener, guardUpgradeListener } from './http/guard-request-listener.ts';
import { createHttpHandler, type Readiness } from './http/http-handler.ts';
import { createPairingApi } from './http/pairing-api.ts';
import { requestPath } from './http/parse-request-target.ts';
import { createPersonMemoryApi } from './http/person-memory-api.ts';
import { refuseBadTarget } from './http/refuse-bad-target.ts';
import { createWebUploadsApi } from './http/web-uploads-api.ts';
import { GatewayMetrics } from './metrics/gateway-metrics.ts';
import { MemoryMetrics } from './metrics/memory-metrics.ts';
import { startDistributedRuns, turnLimitsOf } from './roles/distributed-runs.ts';
import { createGatewaySchedules } from './tools/create-gateway-schedules.ts';
import { createGatewayTools } from './tools/create-gateway-tools.ts';
import { remindersEraser } from './tools/reminders-eraser.ts';
import type { GatewayTracing } from './tracing/start-tracing.ts';
import { isAllowedOrigin } from './web/is-same-origin.ts';
import { loadStaticFiles } from './web/static-files.ts';
import { loadOrCreateWebToken } from './web/web-token.ts';
import { createGatewayWebUploads } from './web-uploads/create-gateway-web-uploads.ts';

export interface StartGatewayOptions {
  config: GatewayConfig;
  logger?: Logger;
  /** Directory of the built web client; defaults to apps/web/dist. */
  webDistDir?: string;
  now?: () => number;
  /** Tests only: WhatsApp through a stand-in socket instead of Baileys' `makeWASocket`. */
  whatsappSocketFactory?: WhatsAppSocketFactory;
  /** Tracing on (see tracing/start-tracing.ts): each turn becomes a trace. */
  tracing?: GatewayTracing;
}

export interface RunningGateway {
  /** e.g. http://127.0.0.1:8787 */
  url: string;
  port: number;
  token: string;
  core: NexusCore;
  metrics: GatewayMetrics;
  /** The web chat's channel, e.g. for tests that deliver a reply to a browser directly. */
  web: WebSocketChannel;
  /** Graceful stop: refuse new messages, let replies finish until the deadline, then close everything. */
  close(): Promise<void>;
}

const DEFAULT_WEB_DIST = resolve(dirname(fileURLToPath(import.meta.url)), '../../web/dist');

/** The one composition root: builds every store, the core and the channels from config, and serves HTTP. */
export async function startGateway(options: StartGatewayOptions): Promise<RunningGateway> {
  const { config } = options;
  const logger = options.logger ?? silentLogger;
  const now = options.now ?? Date.now;
  const startedAt = now();

  ensurePrivateDirectory(config.dataDir);
  const looseModes = await findLooseModes(config.dataDir);
  if (looseModes.length > 0) {
    // Not changed behind the operator's back (a backup user may be meant to read them): said loudly.
    logger.warn(
      {
        dataDir: config.dataDir,
        paths: looseModes.slice(0, 10).map((entry) => entry.path),
        count: looseModes.length,
      },
      `files in the data directory are readable by other users; run \`nexus doctor --fix\` or \`${chmodCommand(config.dataDir)}\``,
    );
  }
  const token = await loadOrCreateWebToken(config.dataDir, config.web.token);
  const { model, agent } = await createConfiguredAgent(config, logger);

  const metrics = new GatewayMetrics();
  const sessionStore = createSqliteSessionStore({
    path: privateFilePath(join(config.dataDir, 'sessions.sqlite')),
  });
  // Role `gateway` (or `all` with Redis): agent runs go to workers; see roles/distributed-runs.ts.
  const tracing = options.tracing;
  const distributed = await startDistributedRuns({
    config,
    localAgent: agent,
    logger,
    ...(tracing ? { tracing } : {}),
  });
  const memory = await createGatewayMemory({
    config,
    logger,
    model,
    metrics: new MemoryMetrics(metrics.registry),
    // A memory service every process reaches: its jobs go through Redis, so workers extract.
    ...(distributed?.memoryQueue ? { jobQueue: distributed.memoryQueue } : {}),
    ...(tracing ? { tracing } : {}),
  });
  const accessStore = openAccessStore(config.dataDir);
  const schedules = await createGatewaySchedules({ config, logger, metrics: metrics.tools, now });
  // MCP servers connect in the background: a dead one never delays the start or a turn.
  const tools = await createGatewayTools({ config, logger, metrics: metrics.tools, schedules });
  tools.start();
  // Reaches a channel conversation outside a turn: the link approval request to the code's issuer.
  const notifier = createConversationNotifier();
  const media = createGatewayMedia(config);
  const webUploads = createGatewayWebUploads(config, media.store);
  const core = createNexusCore({
    media: media.settings,
    sessionStore,
    access: createGatewayAccess({
      config,
      store: accessStore,
      logger,
      memory: memory.service,
      extraCommands: schedules.commands,
      notify: notifier.notify,
      erasers: [
        ...gatewayErasers({
          sessionStore,
          memoryQueue: memory.jobQueue,
          media: media.store,
          webUploads: webUploads.uploads,
          ...(distributed ? { redis: distributed.eraser } : {}),
        }),
        remindersEraser(schedules.store),
      ],
    }),
    agent: distributed?.agent ?? agent,
    logger,
    maxConcurrentTurns: config.core.maxConcurrentTurns,
    maxQueuedPerConversation: config.core.maxQueuedPerConversation,
    historyTokenBudget: config.core.historyTokenBudget,
    onTurnFinished: (report) => metrics.observeTurn(report),
    tokenCounter: memory.tokenCounter,
    memory: memory.coreOptions,
    ...(config.model.tools && model ? { subagents: {} } : {}),
    turnLimits: turnLimitsOf(config),
    ...(tracing ? { tracing } : {}),
    // A model without tool calling (NEXUS_MODEL_TOOLS=false) gets no outside tools either.
    ...(config.model.tools ? { outsideTools: tools.outsideTools } : {}),
    ...(distributed ? { createTurnBudget: distributed.createTurnBudget } : {}),
    ...(config.cost.dailyTokensPerPerson
      ? {
          dailyBudget: createSqliteDailyTokenBudget({
            path: privateFilePath(join(config.dataDir, 'token-budget.sqlite')),
            tokensPerDay: config.cost.dailyTokensPerPerson,
          }),
        }
      : {}),
  });
  memory.startWorkers({ sessionStore, timeZoneOf: schedules.timeZoneOf });
  schedules.bindDelivery((outbound) => core.deliverOutbound(outbound));
  const web = createWebSocketChannel({
    token,
    channelName: WEB_CHANNEL_NAME,
    maxPayloadBytes: config.web.maxPayloadBytes,
    messagesPerMinute: config.web.messagesPerMinute,
    // Raw frames per second stay well above the message rate so a burst of legitimate messages is
    // answered (rate_limited) rather than dropped by the flood guard.
    maxFramesPerSecond: Math.max(50, Math.ceil(config.web.messagesPerMinute / 60) * 4),
    ...(config.web.allowedOrigins ? { allowedOrigins: config.web.allowedOrigins } : {}),
    notice: () => (model ? undefined : NOT_CONFIGURED_MESSAGE),
    uploads: webUploads.uploads,
    maxUploadBytes: config.media.maxBytes,
    logger,
  });
  core.registerChannel(web);
  notifier.add(web);
  const { channels: platformChannels, postRoutes } = await createPlatformChannels(config, logger, {
    ...(options.whatsappSocketFactory ? { whatsappSocketFactory: options.whatsappSocketFactory } : {}),
  });
  for (const channel of platformChannels) {
    core.registerChannel(channel);
    notifier.add(channel);
  }
  // What an earlier process accepted and did not answer goes into the lanes before any channel
  // takes a new message, so each conversation keeps its order.
  await core.replayInbox();

  let stopping = false;
  const readiness = (): Readiness => {
    const webHealth = web.health();
    const redisHealth = distributed?.health();
    return {
      ready: !stopping && webHealth.status === 'up' && (redisHealth?.status ?? 'up') === 'up',
      checks: {
        gateway: { status: stopping ? 'stopping' : 'up' },
        model: model
          ? { status: 'configured' }
          : { status: 'not_configured', detail: 'set NEXUS_MODEL_PROVIDER' },
        web: webHealth,
        ...(redisHealth ? { redis: redisHealth } : {}),
        ...Object.fromEntries(platformChannels.map((channel) => [channel.name, channel.health()])),
      },
    };
  };
  const staticFiles = await loadStaticFiles(options.webDistDir ?? DEFAULT_WEB_DIST);
  if (staticFiles.size === 0) logger.warn({}, 'web client not built: run `pnpm build`');

  const handleHttp = createHttpHandler({
    staticFiles,
    readiness,
    startedAt,
    now,
    metrics: async () => {
      const stats = core.stats();
      metrics.activeTurns.set(stats.activeTurns);
      metrics.queuedTurns.set(stats.queuedTurns);
      metrics.webConnections.set(web.connectionCount());
      return { contentType: metrics.registry.contentType, body: await metrics.registry.metrics() };
    },
  });
  // A plain GET on the socket path lets the web client check its token before upgrading.
  const pairingApi = createPairingApi({ store: accessStore, token, logger });
  const personMemoryApi = createPersonMemoryApi({
    memory: memory.service,
    store: accessStore,
    token,
    logger,
  });
  const webUploadsApi = createWebUploadsApi({
    uploads: webUploads.uploads,
    token,
    maxBytes: config.media.maxBytes,
    logger,
  });
  const channelsApi = createChannelsApi({
    token,
    channels: () => [web, ...platformChannels],
    relink: async (name) => {
      const channel = platformChannels.find((candidate) => candidate.name === name);
      if (stopping || !channel) {
        throw new NexusError({
          code: 'channel_unavailable',
          message: `The ${name} channel cannot start now.`,
        });
      }
      await channel.start({ sink: core.intake });
    },
    toolServers: tools.mcpStatus,
    logger,
  });
  const server = createServer(
    httpServerOptions(config.server),
    guardRequestListener((request, response) => {
      if (refuseBadTarget(request, response)) return;
      if (
        pairingApi(request, response) ||
        webUploadsApi(request, response) ||
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
  server.on(
    'upgrade',
    guardUpgradeListener((request, socket, head) => {
      if (stopping) {
        socket.end('HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\n\r\n');
        return;
      }
      if (requestPath(request) === undefined) {
        socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n');
        return;
      }
      if (!isAllowedOrigin(request, config.web.allowedOrigins)) {
        socket.end('HTTP/1.1 403 Forbidden\r\nConnection: close\r\n\r\n');
        return;
      }
      if (!web.handleUpgrade(request, socket, head))
        socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\n\r\n');
    }, logger),
  );

  await new Promise<void>((resolveListen, rejectListen) => {
    server.once('error', rejectListen);
    server.listen(config.server.port, config.server.host, () => {
      server.off('error', rejectListen);
      resolveListen();
    });
  });
  await web.start({ sink: core.intake });
  // Platform channels start in the background: one that cannot connect (or waits to be linked) is
  // logged and reported by /ready, and never delays or stops the web chat.
  const platformStarts = Promise.all(
    platformChannels.map((channel) =>
      channel.start({ sink: core.intake }).then(
        () => logger.info({ channel: channel.name }, 'channel started'),
        (error: unknown) => logger.error({ channel: channel.name, err: error }, 'channel failed to start'),
      ),
    ),
  );
  // Due reminders (and those missed while down, marked late) go out once the channels are up; a
  // channel that failed to start makes its deliveries fail and retry with backoff.
  void platformStarts.then(() => {
    if (stopping) return;
    schedules.start().catch((error: unknown) => logger.error({ err: error }, 'schedules failed to start'));
  });
  const port = (server.address() as AddressInfo).port;
  const url = `http://${config.server.host.includes(':') ? `[${config.server.host}]` : config.server.host}:${port}`;
  logger.info({ url }, 'nexus gateway listening');

  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= (async () => {
      stopping = true;
      // Channels stop taking messages first, so nothing is acknowledged that core would then
      // refuse; replies keep flowing. Core then answers what it accepted or leaves it in the inbox.
      await Promise.all(
        [web, ...platformChannels].map((channel) =>
          channel.stopIntake?.().catch((error: unknown) => {
            logger.warn({ channel: channel.name, err: error }, 'channel could not stop its intake');
          }),
        ),
      );
      const memoryWorkersStopped = memory.stopWorkers();
      media.stop();
      webUploads.stop();
      await core.shutdown({ deadlineMs: config.core.shutdownDeadlineMs });
      // After core: the turns it still finishes read the schedule store (time zones, the tool).
      await schedules.close();
      await memoryWorkersStopped;
      await memory.close();
      await tools.close();
      await distributed?.close({ timeoutMs: 1000 });
      await Promise.race([
        platformStarts,
        new Promise((resolveWait) => setTimeout(resolveWait, 2000).unref()),
      ]);
      await Promise.all([
        web.stop(),
        ...platformChannels.map((channel) => channel.stop().catch(() => undefined)),
      ]);
      await new Promise<void>((resolveClose) => {
        server.close(() => resolveClose());
        server.closeIdleConnections();
        setTimeout(() => server.closeAllConnections(), 1000).unref();
      });
      accessStore.close();
      logger.info({}, 'nexus gateway stopped');
    })();
    return closing;
  };

  return { url, port, token, core, metrics, web, close };
}
