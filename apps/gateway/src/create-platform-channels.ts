import { join } from 'node:path';
import type { ChannelAdapter, Logger } from '@nexus/protocol';
import type { GatewayConfig } from './gateway-config.ts';

/**
 * The chat platforms the configuration turns on. Each is optional: a token (or the WhatsApp
 * switch) enables it, and nothing about the others changes. Platform libraries are imported only
 * when their channel is on: discord.js and Baileys alone cost tens of megabytes of memory.
 */
export async function createPlatformChannels(
  config: GatewayConfig,
  logger: Logger,
): Promise<ChannelAdapter[]> {
  const channels: ChannelAdapter[] = [];
  if (config.telegram.botToken) {
    const { createFileUpdateStore, createTelegramChannel } = await import('@nexus/channel-telegram');
    channels.push(
      createTelegramChannel({
        token: config.telegram.botToken,
        ...(config.telegram.apiRoot ? { apiRoot: config.telegram.apiRoot } : {}),
        updateStore: createFileUpdateStore({ path: join(config.dataDir, 'telegram-updates.json') }),
        logger: logger.child({ channel: 'telegram' }),
      }),
    );
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
  return channels;
}
