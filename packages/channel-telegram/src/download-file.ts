import {
  DEFAULT_OUTBOUND_TIMEOUT_MS,
  fetchWithPolicy,
  OutboundFetchError,
  type OutboundFetchPolicy,
  PLATFORM_MEDIA_HOSTS,
} from '@nexus/channel-kit';
import type { Api } from 'grammy';
import {
  TelegramAttachmentTooLargeError,
  TelegramDeliveryError,
  toDeliveryError,
} from './telegram-errors.ts';

export interface DownloadFileOptions {
  api: Api;
  apiRoot: string;
  token: string;
  /** Name resolution for the shared outbound policy (tests); default the system resolver. */
  resolve?: OutboundFetchPolicy['resolve'];
  /** The channel's injected `fetch`, if any: downloads go through it under the same policy. */
  fetch?: typeof globalThis.fetch;
  platformFileId: string;
  maxBytes: number;
  abortSignal?: AbortSignal;
}

export interface DownloadedFile {
  bytes: Uint8Array;
  /** Telegram's path of the file, e.g. `photos/file_3.jpg` (its extension hints at the type). */
  filePath: string;
}

/**
 * Fetches an attachment on demand: `getFile`, then the file itself, refusing anything over
 * `maxBytes` both from the announced size and while reading, so a wrong size cannot exhaust memory.
 * The download follows the shared outbound policy: Telegram's API host, or the API root the
 * operator configured (a self-hosted Bot API server), public addresses only, with a deadline.
 */
export async function downloadFile(options: DownloadFileOptions): Promise<DownloadedFile> {
  let file: Awaited<ReturnType<Api['getFile']>>;
  try {
    file = await options.api.getFile(
      options.platformFileId,
      options.abortSignal as Parameters<Api['getFile']>[1],
    );
  } catch (error) {
    throw toDeliveryError(error, 'getFile');
  }
  if (file.file_size !== undefined && file.file_size > options.maxBytes) {
    throw new TelegramAttachmentTooLargeError({ sizeBytes: file.file_size, maxBytes: options.maxBytes });
  }
  if (!file.file_path) {
    throw new TelegramDeliveryError({
      kind: 'bad_request',
      message: 'Telegram getFile returned no file_path',
    });
  }
  const url = `${options.apiRoot}/file/bot${options.token}/${file.file_path}`;
  let bytes: Uint8Array;
  try {
    bytes = await fetchWithPolicy(telegramFilePolicy(options), {
      url,
      maxBytes: options.maxBytes,
      ...(options.abortSignal ? { abortSignal: options.abortSignal } : {}),
    });
  } catch (error) {
    throw explainDownloadFailure(error, options.maxBytes);
  }
  return { bytes, filePath: file.file_path };
}

const OFFICIAL_API_ROOT = 'https://api.telegram.org';

function telegramFilePolicy(options: DownloadFileOptions): OutboundFetchPolicy {
  const configured = new URL(options.apiRoot).origin !== OFFICIAL_API_ROOT;
  return {
    platform: 'Telegram',
    allowedHosts: PLATFORM_MEDIA_HOSTS.telegram,
    timeoutMs: DEFAULT_OUTBOUND_TIMEOUT_MS,
    ...(configured ? { configuredOrigins: [options.apiRoot] } : {}),
    ...(options.resolve ? { resolve: options.resolve } : {}),
    ...(options.fetch ? { transport: options.fetch } : {}),
  };
}

function explainDownloadFailure(error: unknown, maxBytes: number): unknown {
  if (!(error instanceof OutboundFetchError)) return error;
  if (error.failure === 'too_large') return new TelegramAttachmentTooLargeError({ maxBytes });
  if (error.failure === 'status')
    return new TelegramDeliveryError({
      kind: (error.status ?? 0) >= 500 ? 'server_error' : 'bad_request',
      message: `Telegram file download answered ${error.status}`,
      cause: error,
    });
  return new TelegramDeliveryError({
    kind: error.failure === 'refused' ? 'bad_request' : 'network',
    message: `Telegram file download failed: ${error.message}`,
    cause: error,
  });
}
