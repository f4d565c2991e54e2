import { type Attachment, NexusError, toNexusError } from '@nexus/protocol';
import { extractPdfText } from './extract-pdf-text.ts';
import { NO_TRANSCRIBER_TEXT, NO_VISION_TEXT } from './media-reply-text.ts';
import { scaleImageForModel } from './scale-image-for-model.ts';
import { sniffMediaType } from './sniff-media-type.ts';
import type { PrepareTurnMediaOptions, TurnMedia } from './turn-media.ts';
import { withDeadline } from './with-deadline.ts';

/**
 * Turns one downloaded attachment into what the model gets, by the type its bytes show. Only an
 * attachment used this way is kept, under the person the turn ran for, so forgetting them
 * removes it (docs/media.md); a file refused or unreadable is never written.
 */
export async function useAttachment(
  attachment: Attachment,
  bytes: Uint8Array,
  media: TurnMedia,
  signal: AbortSignal,
  options: PrepareTurnMediaOptions,
): Promise<void> {
  const { settings } = options;
  const sniffed = sniffMediaType(bytes);
  const keep = (kept: Uint8Array) =>
    settings.store?.put(kept, options.intent.userId).catch((error: unknown) => {
      options.logger.warn({ code: toNexusError(error).code }, 'attachment used but not kept');
    });
  switch (sniffed.family) {
    case 'image':
      if (!settings.vision) {
        media.problems.push(NO_VISION_TEXT);
        return;
      }
      {
        // Scaled here, in the gateway: what a run carries to a worker, and what is kept, is the
        // image as the model takes it, never the 20 MB original.
        const image = await withDeadline(
          scaleImageForModel({ bytes: bytes, mediaType: sniffed.mimeType }),
          signal,
        );
        media.images.push(image);
        await keep(image.bytes);
      }
      return;
    case 'audio': {
      if (!settings.transcriber) {
        media.problems.push(NO_TRANSCRIBER_TEXT);
        return;
      }
      const text = await withDeadline(
        settings.transcriber.transcribe({
          bytes: bytes,
          mimeType: sniffed.mimeType,
          abortSignal: signal,
        }),
        signal,
      );
      if (text === '') throw unsupported('I could not make out any words in it.');
      media.heard.push(text);
      await keep(bytes);
      return;
    }
    case 'pdf': {
      const remaining = settings.documentMaxChars - documentChars(media);
      const pdf = await extractPdfText({
        bytes: bytes,
        personId: options.intent.userId,
        maxPages: settings.pdfMaxPages,
        maxChars: Math.max(0, remaining),
        timeoutMs: settings.timeBudgetMs,
      });
      if (pdf.text.trim() === '')
        throw unsupported('it has no text I can read (perhaps only scanned images).');
      const cut =
        pdf.pagesRead < pdf.pages ? ` (pages 1-${pdf.pagesRead} of ${pdf.pages}; the rest was left out)` : '';
      media.documents.push(documentBlock(attachment, `PDF${cut}`, pdf.text));
      await keep(bytes);
      return;
    }
    case 'text': {
      const remaining = Math.max(0, settings.documentMaxChars - documentChars(media));
      const text = new TextDecoder().decode(bytes);
      const cut = text.length > remaining ? ` (first ${remaining} characters of ${text.length})` : '';
      media.documents.push(documentBlock(attachment, `text${cut}`, text.slice(0, remaining)));
      await keep(bytes);
      return;
    }
    default:
      // Claimed to be an image or a voice note, but the bytes are something else: refuse, never guess.
      if (attachment.kind !== 'document' && attachment.kind !== 'other') {
        throw new NexusError({ code: 'attachment_corrupt', message: 'magic bytes do not match' });
      }
      throw unsupported('I can read images, voice notes, PDFs and plain text, but not this kind of file.');
  }
}

function documentBlock(attachment: Attachment, what: string, text: string): string {
  return `Attached document "${attachment.name ?? 'unnamed'}" (${what}):\n${text}`;
}

function documentChars(media: TurnMedia): number {
  return media.documents.reduce((sum, block) => sum + block.length, 0);
}

function unsupported(message: string): NexusError {
  return new NexusError({ code: 'attachment_unsupported', message });
}
