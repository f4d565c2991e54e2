import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { WebSocketChannel } from '@nexus/channel-websocket';
import type { WhatsAppSocketFactory } from '@nexus/channel-whatsapp';
import type { NexusCore } from '@nexus/core';
import type { Logger } from '@nexus/protocol';
import { composeGateway } from './composition/compose-gateway.ts';
import { createGatewayServer } from './composition/create-gateway-server.ts';
import type { GatewayState } from './composition/gateway-parts.ts';
import { startServing } from './composition/start-serving.ts';
import { stopGateway } from './composition/stop-gateway.ts';
import type { GatewayConfig } from './config/gateway-config.ts';
import type { GatewayMetrics } from './metrics/gateway-metrics.ts';
import type { GatewayTracing } from './tracing/gateway-tracing.ts';

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

/**
 * The one composition root, in three named steps: compose (every store, the core and the channels
 * from config), start (the HTTP server listening, the channels taking messages), stop (the reverse,
 * once, however often `close` is called).
 */
export async function startGateway(options: StartGatewayOptions): Promise<RunningGateway> {
  const parts = await composeGateway(options);
  const state: GatewayState = { stopping: false };
  const server = await createGatewayServer(parts, state, options.webDistDir ?? DEFAULT_WEB_DIST);
  const { url, port, platformStarts } = await startServing(parts, server, state);
  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= stopGateway(parts, server, platformStarts, state);
    return closing;
  };
  const { token, core, metrics, web } = parts;
  return { url, port, token, core, metrics, web, close };
}
