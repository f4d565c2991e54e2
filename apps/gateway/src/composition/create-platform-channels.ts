import type { IncomingMessage, ServerResponse } from 'node:http';
import { join } from 'node:path';
import type { WhatsAppSocketFactory } from '@nexus/channel-whatsapp';
import type { ChannelAdapter, Logger } from '@nexus/protocol';
import type { GatewayConfig } from '../config/gateway-config.ts';
import { privateFilePath } from '../data-dir/private-path.ts';

export type HttpRoute = (request: IncomingMessage, response: ServerResponse) => void;

export interface PlatformChannels {
  channels: ChannelAdapter[];
  /** POST routes a platform needs on the gateway's HTTP server (Telegram's webhook). */
  postRoutes: Map<string, HttpRoute>;
}

export interface PlatformChannelOptions {
  /** Tests only: a stand-in for Baileys' `makeWASocket`. */
  whatsappSocketFactory?: WhatsAppSocketFactory;
}

/**
 * The chat platforms the configuration turns on. Each is optional: a token (or the WhatsApp
 * switch) enables it, and nothing about the others changes. Platform libraries are imported only
 * when their channel is on: discord.js and Baileys alone cost tens of megabytes of memory.
 */
export async function createPlatformChannels(
  config: GatewayConfig,
  logger: Logger,
  options: PlatformChannelOptions = {},
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
        // Discord does not redeliver what arrived while the gateway was down; this cursor lets
        // the adapter read it back from each channel's history.
        cursorPath: privateFilePath(join(config.dataDir, 'discord-cursor.sqlite')),
        logger: logger.child({ channel: 'discord' }),
      }),
    );
  }
  if (config.whatsapp.enabled) {
    const { createWhatsAppChannel, printQrToTerminal } = await import('@nexus/channel-whatsapp');
    const whatsappLogger = logger.child({ channel: 'whatsapp' });
    let awaitingScan = false;
    const whatsapp = createWhatsAppChannel({
      authPath: privateFilePath(join(config.dataDir, 'whatsapp.sqlite')),
      ...(config.whatsapp.pairingPhone ? { pairingPhoneNumber: config.whatsapp.pairingPhone } : {}),
      ...(options.whatsappSocketFactory ? { socketFactory: options.whatsappSocketFactory } : {}),
      // The QR goes to the console with the logs; NEXUS_LOG_LEVEL=silent silences it too, and the
      // web client's Channels panel shows it either way.
      onQr: (qr) => {
        if (config.log.level !== 'silent') void printQrToTerminal(qr);
      },
      onLinkState: (state) => {
        // Once per wait, not on every QR rotation (about every 20 s).
        const waitingForScan = state.status === 'awaiting_link' && state.qr !== undefined;
        if (waitingForScan && !awaitingScan) {
          whatsappLogger.warn(
            {},
            "whatsapp: not linked; scan the QR code in the console or in the web client's Channels panel",
          );
        }
        awaitingScan = waitingForScan;
      },
      logger: whatsappLogger,
    });
    channels.push(whatsapp);
  }
  return { channels, postRoutes };
}
