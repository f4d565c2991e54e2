import { join } from 'node:path';
import { WEB_CHANNEL_NAME } from '@nexus/channel-websocket';
import type { WhatsAppSocketFactory } from '@nexus/channel-whatsapp';
import { createConversationNotifier, createSqliteSessionStore, forgetScheduledSummaries } from '@nexus/core';
import { type Logger, silentLogger } from '@nexus/protocol';
import type { GatewayConfig } from '../config/gateway-config.ts';
import { privateFilePath } from '../data-dir/private-path.ts';
import { createWebSessionApi } from '../http/web-session-api.ts';
import { GatewayMetrics } from '../metrics/gateway-metrics.ts';
import { MemoryMetrics } from '../metrics/memory-metrics.ts';
import { createGatewayTools } from '../tools/create-gateway-tools.ts';
import type { GatewayTracing } from '../tracing/gateway-tracing.ts';
import { withWebConversationEvents } from '../web/web-conversation-events.ts';
import { WebSessions } from '../web/web-sessions.ts';
import { loadOrCreateWebToken } from '../web/web-token.ts';
import { createGatewayWebUploads } from '../web-uploads/create-gateway-web-uploads.ts';
import { composeCore } from './compose-core.ts';
import { createConfiguredAgent } from './create-configured-agent.ts';
import { openAccessStore } from './create-gateway-access.ts';
import { createGatewayMedia } from './create-gateway-media.ts';
import { createGatewaySchedules } from './create-gateway-schedules.ts';
import { createGatewayWebChannel } from './create-gateway-web-channel.ts';
import { createPlatformChannels } from './create-platform-channels.ts';
import { startDistributedRuns } from './distributed-runs.ts';
import type { GatewayParts } from './gateway-parts.ts';
import { createGatewayMemory } from './memory/create-gateway-memory.ts';
import { createModelFetch } from './model-fetch.ts';
import { prepareDataDir } from './prepare-data-dir.ts';

export interface ComposeGatewayOptions {
  config: GatewayConfig;
  logger?: Logger;
  now?: () => number;
  whatsappSocketFactory?: WhatsAppSocketFactory;
  tracing?: GatewayTracing;
}

/**
 * Compose: every store, the core and the channels built from config, with what an earlier process
 * accepted and did not answer already back in the lanes. Nothing listens yet.
 */
export async function composeGateway(options: ComposeGatewayOptions): Promise<GatewayParts> {
  const { config, tracing } = options;
  const logger = options.logger ?? silentLogger;
  const now = options.now ?? Date.now;
  const startedAt = now();
  await prepareDataDir(config.dataDir, logger);
  const token = await loadOrCreateWebToken(config.dataDir, config.web.token);
  // One keep-alive client for every model request of this process (chat, extraction, embeddings).
  const modelFetch = createModelFetch();
  const { model, agent } = await createConfiguredAgent(config, logger, { fetch: modelFetch });
  const metrics = new GatewayMetrics();
  // Each web person's conversation list follows the turns; changes reach their other tabs.
  const sessionStore = withWebConversationEvents(
    createSqliteSessionStore({
      path: privateFilePath(join(config.dataDir, 'sessions.sqlite')),
      // `nexus users forget` in another process deletes turns here and the conversations'
      // summary jobs: the next turns must schedule their summaries again, not trust the memo.
      onChangedElsewhere: forgetScheduledSummaries,
    }),
    // Called once messages arrive, long after `web` below exists.
    { channel: WEB_CHANNEL_NAME, notify: (clientId, frame) => web.sendToClient(clientId, frame), logger },
  );
  // Role `gateway` (or `all` with Redis): agent runs go to workers; see distributed-runs.ts.
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
    fetch: modelFetch,
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
  const stores = {
    config,
    logger,
    model,
    metrics,
    sessionStore,
    distributed,
    memory,
    accessStore,
    schedules,
  };
  const built = { ...stores, tools, media, webUploads };
  const core = composeCore(built, { agent, notifier, tracing });
  memory.startWorkers({
    sessionStore,
    timeZoneOf: schedules.timeZoneOf,
    turnsWaiting: () => core.stats().turnsWaitingForSlot,
  });
  schedules.bindDelivery((outbound) => core.deliverOutbound(outbound));
  const modelConfigured = model !== undefined;
  const webSession = createWebSessionApi({
    sessions: new WebSessions({ dataDir: config.dataDir, now }),
    token,
    allowedOrigins: config.web.allowedOrigins,
    socketPath: '/ws',
    // Called at sign-out, long after `web` below exists.
    endSession: (session) => web.closeSession(session),
    logger,
  });
  const web = createGatewayWebChannel({
    config,
    token,
    clientIdOf: webSession.clientIdOf,
    sessionOf: webSession.sessionOf,
    modelConfigured,
    uploads: webUploads.uploads,
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
  schedules.bindChannels([web, ...platformChannels]);
  // What an earlier process accepted and did not answer goes into the lanes before any channel
  // takes a new message, so each conversation keeps its order.
  await core.replayInbox();
  return { ...built, now, startedAt, token, core, web, webSession, platformChannels, postRoutes };
}
