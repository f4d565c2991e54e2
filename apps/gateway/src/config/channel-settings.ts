import { z } from 'zod';
import type { SettingDefinition } from './setting-definition.ts';
import { booleanText } from './setting-schemas.ts';

/**
 * The platform channels: Telegram, Discord and WhatsApp (the web client is in server-settings.ts).
 * Part of the settings table (`settings.ts`), in its order.
 */
export const CHANNEL_SETTINGS = [
  {
    env: 'NEXUS_TELEGRAM_BOT_TOKEN',
    path: 'telegram.botToken',
    schema: z.string().regex(/^\d+:[A-Za-z0-9_-]+$/, 'expected a bot token such as 123456:ABC-DEF…'),
    description:
      'Telegram bot token from @BotFather. Setting it turns the Telegram channel on (long polling).',
    hint: 'copy the token @BotFather gave you (digits, a colon, then letters), or unset it to turn Telegram off',
    secret: true,
  },
  {
    env: 'NEXUS_TELEGRAM_API_ROOT',
    path: 'telegram.apiRoot',
    schema: z.url().refine((value) => !value.endsWith('/'), 'must not end with /'),
    description:
      'Bot API server root, for a self-hosted Telegram Bot API server. Default: https://api.telegram.org.',
    hint: 'use a URL without a trailing slash, e.g. http://127.0.0.1:8081',
  },
  {
    env: 'NEXUS_TELEGRAM_WEBHOOK_URL',
    path: 'telegram.webhookUrl',
    schema: z
      .url()
      .refine(
        (value) => value.startsWith('https://') || /^http:\/\/(127\.0\.0\.1|localhost)[:/]/.test(value),
        'Telegram only delivers webhooks to https URLs',
      ),
    description:
      'Public HTTPS URL Telegram should POST updates to (webhook mode). Its path is served by the gateway; unset: long polling.',
    hint: 'use the public https URL that reaches this gateway, e.g. https://bot.example.com/telegram/webhook',
  },
  {
    env: 'NEXUS_TELEGRAM_WEBHOOK_SECRET',
    path: 'telegram.webhookSecret',
    schema: z.string().regex(/^[A-Za-z0-9_-]{16,256}$/, 'expected 16–256 letters, digits, _ or -'),
    description:
      'Secret Telegram sends with every webhook request; requests without it are refused. Required in webhook mode.',
    hint: 'generate one, e.g. `openssl rand -hex 32`',
    secret: true,
  },
  {
    env: 'NEXUS_DISCORD_BOT_TOKEN',
    path: 'discord.botToken',
    schema: z.string().min(20),
    description:
      'Discord bot token (Developer Portal → Bot; enable the Message Content intent). Setting it turns the Discord channel on.',
    hint: 'copy the bot token from the Discord Developer Portal, or unset it to turn Discord off',
    secret: true,
  },
  {
    env: 'NEXUS_DISCORD_API_URL',
    path: 'discord.apiUrl',
    schema: z.url(),
    description:
      'Discord REST API root, only for testing against a stand-in. Default: https://discord.com/api.',
    hint: 'use a URL such as http://127.0.0.1:3000/api',
  },
  {
    env: 'NEXUS_WHATSAPP_ENABLED',
    path: 'whatsapp.enabled',
    schema: booleanText,
    defaultValue: false,
    description:
      'Turn the WhatsApp channel on (a linked device through Baileys). Link it by scanning the QR code shown in the web client’s Channels panel (also printed in the log).',
    hint: 'use true or false',
  },
  {
    env: 'NEXUS_WHATSAPP_PAIRING_PHONE',
    path: 'whatsapp.pairingPhone',
    schema: z.string().regex(/^\d{6,15}$/, 'expected the phone number in international format, digits only'),
    description: 'Link WhatsApp with a pairing code for this phone number instead of a QR code.',
    hint: 'write the number with country code and digits only, e.g. 351912345678',
  },
] as const satisfies readonly SettingDefinition[];
