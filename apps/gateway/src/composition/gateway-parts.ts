import type { WebSocketChannel } from '@nexus/channel-websocket';
import type { NexusCore, SessionStore } from '@nexus/core';
import type { Logger } from '@nexus/protocol';
import type { LanguageModel } from 'ai';
import type { GatewayConfig } from '../config/gateway-config.ts';
import type { WebSessionApi } from '../http/web-session-api.ts';
import type { GatewayMetrics } from '../metrics/gateway-metrics.ts';
import type { GatewayTools } from '../tools/create-gateway-tools.ts';
import type { createGatewayWebUploads } from '../web-uploads/create-gateway-web-uploads.ts';
import type { openAccessStore } from './create-gateway-access.ts';
import type { createGatewayMedia } from './create-gateway-media.ts';
import type { createGatewaySchedules } from './create-gateway-schedules.ts';
import type { PlatformChannels } from './create-platform-channels.ts';
import type { DistributedRuns } from './distributed-runs.ts';
import type { GatewayMemory } from './memory/create-gateway-memory.ts';

/** Everything `composeGateway` built from the config, handed to the start and stop steps. */
export interface GatewayParts {
  config: GatewayConfig;
  logger: Logger;
  now: () => number;
  startedAt: number;
  token: string;
  /** Unset when no model provider is configured (the web chat says so). */
  model: LanguageModel | undefined;
  metrics: GatewayMetrics;
  sessionStore: SessionStore;
  distributed: DistributedRuns | undefined;
  memory: GatewayMemory;
  accessStore: ReturnType<typeof openAccessStore>;
  schedules: Awaited<ReturnType<typeof createGatewaySchedules>>;
  tools: GatewayTools;
  media: ReturnType<typeof createGatewayMedia>;
  webUploads: ReturnType<typeof createGatewayWebUploads>;
  core: NexusCore;
  web: WebSocketChannel;
  /** Web sign-in: the session routes and the cookie check every request and upgrade goes through. */
  webSession: WebSessionApi;
  platformChannels: PlatformChannels['channels'];
  postRoutes: PlatformChannels['postRoutes'];
}

/** What the HTTP surface and the stop step share: set once, when the gateway begins to stop. */
export interface GatewayState {
  stopping: boolean;
}
