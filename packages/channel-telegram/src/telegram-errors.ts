import { NexusError } from '@nexus/protocol';
import { GrammyError, HttpError } from 'grammy';

/** What a failed Bot API call means for the adapter; decides retry, fallback or marking. */
export type TelegramFailureKind =
  | 'blocked'
  | 'rate_limited'
  | 'conflict'
  | 'unauthorized'
  | 'cant_parse_entities'
  | 'not_modified'
  | 'bad_request'
  | 'server_error'
  | 'network'
  | 'unknown';

export function classifyTelegramFailure(error: unknown): TelegramFailureKind {
  if (error instanceof HttpError) return 'network';
  if (!(error instanceof GrammyError)) return 'unknown';
  const description = error.description.toLowerCase();
  switch (error.error_code) {
    case 401:
      return 'unauthorized';
    case 403:
      return 'blocked';
    case 409:
      return 'conflict';
    case 429:
      return 'rate_limited';
    case 400:
      if (description.includes("can't parse entities")) return 'cant_parse_entities';
      if (description.includes('message is not modified')) return 'not_modified';
      return 'bad_request';
    default:
      return error.error_code >= 500 ? 'server_error' : 'unknown';
  }
}

/**
 * A reply that could not be delivered. `retryable` is false when Telegram said no (blocked,
 * bad request) and true when it could not be reached or asked us to slow down.
 */
export class TelegramDeliveryError extends NexusError {
  readonly kind: TelegramFailureKind;

  constructor(options: { kind: TelegramFailureKind; message: string; cause?: unknown }) {
    const retryable = ['rate_limited', 'server_error', 'network'].includes(options.kind);
    super({ code: 'channel_unavailable', message: options.message, retryable, cause: options.cause });
    this.name = 'TelegramDeliveryError';
    this.kind = options.kind;
  }
}

/** The person blocked the bot (403): nothing is sent to this conversation until they write again. */
export class TelegramBlockedError extends TelegramDeliveryError {
  readonly conversationId: string;

  constructor(options: { conversationId: string; cause?: unknown }) {
    super({
      kind: 'blocked',
      message: `Telegram conversation ${options.conversationId} blocked the bot (403); delivery skipped`,
      cause: options.cause,
    });
    this.name = 'TelegramBlockedError';
    this.conversationId = options.conversationId;
  }
}

export class TelegramAttachmentTooLargeError extends NexusError {
  /** `sizeBytes` when known (announced by getFile); a download stopped mid-way knows only that it was more. */
  constructor(options: { sizeBytes?: number; maxBytes: number }) {
    super({
      code: 'attachment_too_large',
      message:
        options.sizeBytes === undefined
          ? `Telegram attachment is over the limit of ${options.maxBytes} bytes`
          : `Telegram attachment is ${options.sizeBytes} bytes, over the limit of ${options.maxBytes}`,
    });
    this.name = 'TelegramAttachmentTooLargeError';
  }
}

export class TelegramConfigError extends NexusError {
  constructor(message: string) {
    super({ code: 'not_configured', message });
    this.name = 'TelegramConfigError';
  }
}

/** Wraps a Bot API failure into a TelegramDeliveryError with a message that names the cause. */
export function toDeliveryError(error: unknown, action: string): TelegramDeliveryError {
  if (error instanceof TelegramDeliveryError) return error;
  const kind = classifyTelegramFailure(error);
  const detail = error instanceof Error ? error.message : String(error);
  return new TelegramDeliveryError({
    kind,
    message: `Telegram ${action} failed (${kind}): ${detail}`,
    cause: error,
  });
}

/**
 * Core did not take an update (a retryable refusal such as `shutting_down`, or the sink threw):
 * it must not be acknowledged to Telegram, so the platform hands it out again.
 */
export class TelegramIntakeDeferredError extends NexusError {
  readonly updateId: number;

  constructor(options: { updateId: number; reason: string; cause?: unknown }) {
    super({
      code: 'channel_unavailable',
      message: `Update ${options.updateId} was not taken (${options.reason}); Telegram will redeliver it.`,
      retryable: true,
      cause: options.cause,
    });
    this.name = 'TelegramIntakeDeferredError';
    this.updateId = options.updateId;
  }
}
