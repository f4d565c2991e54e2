import type { IncomingMessage, ServerResponse } from 'node:http';
import { join } from 'node:path';
import type { ChannelAdapter, Logger } from '@nexus/protocol';
import type { GatewayConfig } from './gateway-config.ts';

export type HttpRoute = (request: IncomingMessage, response: ServerResponse) => void;

export interface PlatformChannels {
  channels: ChannelAdapter[];
  /** POST routes a platform needs on the gateway's HTTP server (Telegram's webhook). */
  postRoutes: Map<string, HttpRoute>;
}

/**
 * The chat platforms the configuration turns on. Each is optional: a token (or the WhatsApp
 * switch) enables it, and nothing about the others changes. Platform libraries are imported only
 * when their channel is on: discord.js and Baileys alone cost tens of megabytes of memory.
 */
export async function createPlatformChannels(
  config: GatewayConfig,
  logger: Logger,
): Promise<PlatformChannels> {
  const channels: ChannelAdapter[] = [];
  const postRoutes = new Map<string, HttpRoute>();
  if (config.telegram.botToken) {
    const { createFileUpdateStore, createTelegramChannel } = await import('@nexus/channel-telegram');
    const webhook = config.telegram.webhookUrl
      ? {
          url: config.telegram.webhookUrl,
          path: new URL(config.telegram.webhookUrl).pathname,
          secretToken: config.telegram.webhookSecret!,
        }
      : undefined;
    const telegram = createTelegramChannel({
      token: config.telegram.botToken,
      ...(config.telegram.apiRoot ? { apiRoot: config.telegram.apiRoot } : {}),
      ...(webhook ? { mode: 'webhook' as const, webhook } : {}),
      updateStore: createFileUpdateStore({ path: join(config.dataDir, 'telegram-updates.json') }),
      logger: logger.child({ channel: 'telegram' }),
    });
    channels.push(telegram);
    if (webhook) postRoutes.set(webhook.path, telegram.webhookHandler);
  }
  if (config.discord.botToken) {
    const { createDiscordChannel } = await import('@nexus/channel-discord');
    channels.push(
      createDiscordChannel({
        token: config.discord.botToken,
        ...(config.discord.apiUrl ? { restApi: config.discord.apiUrl } : {}),
        logger: logger.child({ channel: 'discord' }),
      }),
    );
  }
  if (config.whatsapp.enabled) {
    const { createWhatsAppChannel } = await import('@nexus/channel-whatsapp');
    channels.push(
      createWhatsAppChannel({
        authPath: join(config.dataDir, 'whatsapp.sqlite'),
        ...(config.whatsapp.pairingPhone ? { pairingPhoneNumber: config.whatsapp.pairingPhone } : {}),
        logger: logger.child({ channel: 'whatsapp' }),
      }),
    );
  }
  return { channels, postRoutes };
}
