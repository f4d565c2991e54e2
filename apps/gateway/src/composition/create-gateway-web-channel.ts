import type { IncomingMessage } from 'node:http';
import { createWebSocketChannel, WEB_CHANNEL_NAME, type WebSocketChannel } from '@nexus/channel-websocket';
import type { Logger } from '@nexus/protocol';
import type { GatewayConfig } from '../config/gateway-config.ts';
import type { FileWebUploads } from '../web-uploads/file-web-uploads.ts';
import { NOT_CONFIGURED_MESSAGE } from './create-language-model.ts';

/** The web chat's channel, behind the gateway token; without a model it says how to set one up. */
export function createGatewayWebChannel(options: {
  config: GatewayConfig;
  token: string;
  /** The person a signed-in upgrade stands for (see http/web-session-api.ts). */
  clientIdOf: (request: IncomingMessage) => string | undefined;
  /** The sign-in session behind an upgrade, so sign-out closes its sockets. */
  sessionOf: (request: IncomingMessage) => string | undefined;
  modelConfigured: boolean;
  uploads: FileWebUploads;
  logger: Logger;
}): WebSocketChannel {
  const { config } = options;
  return createWebSocketChannel({
    token: options.token,
    clientIdOf: options.clientIdOf,
    sessionOf: options.sessionOf,
    channelName: WEB_CHANNEL_NAME,
    maxPayloadBytes: config.web.maxPayloadBytes,
    replayMaxBytes: config.web.replayMaxBytes,
    messagesPerMinute: config.web.messagesPerMinute,
    // Raw frames per second stay well above the message rate so a burst of legitimate messages is
    // answered (rate_limited) rather than dropped by the flood guard.
    maxFramesPerSecond: Math.max(50, Math.ceil(config.web.messagesPerMinute / 60) * 4),
    ...(config.web.allowedOrigins ? { allowedOrigins: config.web.allowedOrigins } : {}),
    notice: () => (options.modelConfigured ? undefined : NOT_CONFIGURED_MESSAGE),
    uploads: options.uploads,
    maxUploadBytes: config.media.maxBytes,
    voiceNotes: Boolean(config.media.transcriptionBaseUrl),
    logger: options.logger,
  });
}
