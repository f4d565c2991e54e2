import { join } from 'node:path';
import { createDiscordChannel } from '@nexus/channel-discord';
import { createFileUpdateStore, createTelegramChannel } from '@nexus/channel-telegram';
import { createWhatsAppChannel } from '@nexus/channel-whatsapp';
import type { ChannelAdapter, Logger } from '@nexus/protocol';
import type { GatewayConfig } from './gateway-config.ts';

/**
 * The chat platforms the configuration turns on. Each is optional: a token (or the WhatsApp
 * switch) enables it, and nothing about the others changes.
 */
export function createPlatformChannels(config: GatewayConfig, logger: Logger): ChannelAdapter[] {
  const channels: ChannelAdapter[] = [];
  if (config.telegram.botToken) {
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
    channels.push(
      createDiscordChannel({
        token: config.discord.botToken,
        ...(config.discord.apiUrl ? { restApi: config.discord.apiUrl } : {}),
        logger: logger.child({ channel: 'discord' }),
      }),
    );
  }
  if (config.whatsapp.enabled) {
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
