import type { GroupMessages } from '@nexus/channel-kit';
import type { ChannelHealth, Logger } from '@nexus/protocol';
import type { UserFromGetMe } from 'grammy/types';
import { TelegramConfigError } from './telegram-errors.ts';
import type { UpdateStore } from './update-store.ts';

export interface TelegramWebhookOptions {
  /** Sent by Telegram in `X-Telegram-Bot-Api-Secret-Token`; requests without it are refused. */
  secretToken: string;
  /** Path the gateway routes to `channel.webhookHandler`, e.g. `/telegram/webhook`. */
  path: string;
  /** Public HTTPS URL registered with `setWebhook` on start; omit when registered elsewhere. */
  url?: string;
}

export interface TelegramChannelOptions {
  token: string;
  /** Bot API root without a trailing slash (a local Bot API server or a test fake). */
  apiRoot?: string;
  /** Channel name in intents and conversation refs. Default `telegram`. */
  name?: string;
  mode?: 'polling' | 'webhook';
  webhook?: TelegramWebhookOptions;
  /** Least time between two edits of a streamed draft in a private chat. Default 1000. */
  streamEditIntervalMs?: number;
  /**
   * The same in groups, where Telegram allows about 20 messages a minute per chat and edits
   * count. Default 3000.
   */
  groupStreamEditIntervalMs?: number;
  /** Typing indicator refresh while a reply is produced (Telegram shows it ~5 s). Default 4000. */
  typingIntervalMs?: number;
  /** Long-poll timeout for getUpdates. Default 30. */
  pollingTimeoutSeconds?: number;
  /** A getUpdates call open longer than this is a stall: polling restarts. Default 90 000. */
  pollingStallMs?: number;
  /** Largest attachment `downloadAttachment` fetches. Default 20 MB (the cloud Bot API limit). */
  maxAttachmentBytes?: number;
  /** Persists the update mark so a restart never hands an update to core twice. */
  updateStore: UpdateStore;
  /** Which group messages reach core (`group-gate` in channel-kit). Default `mentioned`. */
  groupMessages?: GroupMessages;
  /** Bot API retries: at most this many attempts after 429/5xx, never waiting longer than `maxDelaySeconds`. */
  retry?: { maxAttempts?: number; maxDelaySeconds?: number; networkRetries?: number };
  /** Updates processed at once across chats. Default 100. */
  concurrency?: number;
  /** Pause before polling an update again that core did not take (busy, shutting down). Default 1000. */
  intakeRetryDelayMs?: number;
  /** Told when a chat blocks the bot (403) or writes again afterwards. */
  onBlockedChange?: (event: { conversationId: string; blocked: boolean }) => void;
  /** Told about every health change (status and detail), e.g. to log or export it. */
  onHealthChange?: (health: ChannelHealth) => void;
  /** Skips `getMe` when the bot's identity is already known. */
  botInfo?: UserFromGetMe;
  logger?: Logger;
  now?: () => number;
  /** Used for Bot API calls and file downloads. Default `globalThis.fetch`. */
  fetch?: typeof globalThis.fetch;
  random?: () => number;
}

const SECRET_TOKEN = /^[A-Za-z0-9_-]{1,256}$/;

/** Rejects options that cannot work, with a message that says which and why. */
export function validateTelegramOptions(options: TelegramChannelOptions): void {
  if (typeof options.token !== 'string' || !/^\d+:[\w-]+$/.test(options.token)) {
    throw new TelegramConfigError('Telegram token must look like "<bot id>:<secret>" (from @BotFather)');
  }
  if (options.apiRoot?.endsWith('/')) throw new TelegramConfigError('Telegram apiRoot must not end with "/"');
  const timeoutMs = (options.pollingTimeoutSeconds ?? 30) * 1000;
  const stallMs = options.pollingStallMs ?? 90_000;
  if (!(stallMs > timeoutMs)) {
    throw new TelegramConfigError(
      `pollingStallMs (${stallMs}) must exceed the long-poll timeout (${timeoutMs} ms), or every poll looks stalled`,
    );
  }
  for (const [key, value] of Object.entries({
    streamEditIntervalMs: options.streamEditIntervalMs,
    groupStreamEditIntervalMs: options.groupStreamEditIntervalMs,
    typingIntervalMs: options.typingIntervalMs,
    maxAttachmentBytes: options.maxAttachmentBytes,
  })) {
    if (value !== undefined && !(value > 0))
      throw new TelegramConfigError(`${key} must be > 0, got ${value}`);
  }
  if (options.mode === 'webhook') {
    const webhook = options.webhook;
    if (!webhook) throw new TelegramConfigError('webhook mode needs webhook: { secretToken, path }');
    if (!SECRET_TOKEN.test(webhook.secretToken)) {
      throw new TelegramConfigError('webhook.secretToken must be 1-256 characters of A-Z, a-z, 0-9, _ or -');
    }
    if (!webhook.path.startsWith('/')) throw new TelegramConfigError('webhook.path must start with "/"');
  }
}
