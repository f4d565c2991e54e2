import { type FetchAttachmentOptions, type FetchedAttachment, NexusError } from '@nexus/protocol';
import type { DownloadedFile } from './download-file.ts';
import { TelegramAttachmentTooLargeError } from './telegram-errors.ts';

/**
 * The port's `fetchAttachment` over Telegram's getFile download: a Telegram failure becomes
 * `attachment_unavailable` (retryable when Telegram was busy or unreachable); too large stays
 * `attachment_too_large`. Voice notes arrive as OGG/Opus; core checks the type from the bytes.
 */
export async function fetchTelegramAttachment(
  download: (options: {
    platformFileId: string;
    maxBytes: number;
    abortSignal?: AbortSignal;
  }) => Promise<DownloadedFile>,
  options: FetchAttachmentOptions,
): Promise<FetchedAttachment> {
  const { attachment } = options;
  if (!attachment.platformFileId) {
    throw new NexusError({
      code: 'attachment_unavailable',
      message: 'The attachment has no Telegram file id.',
    });
  }
  try {
    const file = await download({
      platformFileId: attachment.platformFileId,
      maxBytes: options.maxBytes,
      ...(options.abortSignal ? { abortSignal: options.abortSignal } : {}),
    });
    return {
      bytes: file.bytes,
      ...(attachment.mimeType ? { mimeType: attachment.mimeType } : {}),
      name: attachment.name ?? file.filePath.split('/').at(-1) ?? 'file',
    };
  } catch (error) {
    if (error instanceof TelegramAttachmentTooLargeError) throw error;
    if (options.abortSignal?.aborted) throw options.abortSignal.reason;
    throw new NexusError({
      code: 'attachment_unavailable',
      message: 'Telegram did not hand over the file.',
      retryable: error instanceof NexusError ? error.retryable : true,
      cause: error,
    });
  }
}
