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
  fetch: typeof globalThis.fetch;
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
  let response: Response;
  try {
    response = await options.fetch(url, options.abortSignal ? { signal: options.abortSignal } : {});
  } catch (error) {
    throw new TelegramDeliveryError({
      kind: 'network',
      message: 'Telegram file download failed',
      cause: error,
    });
  }
  if (!response.ok || !response.body) {
    throw new TelegramDeliveryError({
      kind: response.status >= 500 ? 'server_error' : 'bad_request',
      message: `Telegram file download answered ${response.status}`,
    });
  }
  const chunks: Uint8Array[] = [];
  let total = 0;
  // A reader rather than `for await`: the DOM typings some consumers compile with lack the iterator.
  const reader = response.body.getReader();
  for (let read = await reader.read(); !read.done; read = await reader.read()) {
    total += read.value.byteLength;
    if (total > options.maxBytes) {
      await reader.cancel();
      throw new TelegramAttachmentTooLargeError({ sizeBytes: total, maxBytes: options.maxBytes });
    }
    chunks.push(read.value);
  }
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return { bytes, filePath: file.file_path };
}
