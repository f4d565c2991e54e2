import {
  type Attachment,
  type ChannelAdapter,
  type Intent,
  type Logger,
  MAX_INTENT_TEXT_CHARS,
  NexusError,
  toNexusError,
} from '@nexus/protocol';
import { extractPdfText } from './extract-pdf-text.ts';
import {
  attachmentProblemText,
  formatMegabytes,
  NO_TRANSCRIBER_TEXT,
  NO_VISION_TEXT,
  refusalAllowanceText,
} from './media-reply-text.ts';
import type { MediaSettings } from './media-settings.ts';
import { scaleImageForModel } from './scale-image-for-model.ts';
import { sniffMediaType } from './sniff-media-type.ts';

/** An image for the model, type checked from its bytes. */
export interface TurnImage {
  bytes: Uint8Array;
  mediaType: string;
}

/**
 * Attachments read from one message; the rest get one sentence saying so. Platforms allow albums
 * of 10 (Telegram, Discord), so this covers what people send while bounding one message's work.
 */
export const MAX_ATTACHMENTS_PER_TURN = 10;

/**
 * Bytes of attachments one message may hold in memory at once, as a multiple of the per-file cap:
 * images stay in memory until the model call, so ten 20 MB photos must not mean 200 MB.
 */
export const TURN_BYTES_PER_FILE_CAP = 2;

/**
 * Wall-clock allowance for all of one message's attachments together, as a multiple of the
 * per-attachment budget: a message of many slow files must not hold its conversation's lane for
 * minutes. Attachments still waiting when it runs out get the "took too long" sentence.
 */
export const TURN_TIME_BUDGETS = 2;

/** What a turn's attachments became. */
export interface TurnMedia {
  /** The turn's text: what the person wrote, then what they said in voice notes. */
  text: string;
  /** Transcripts of voice notes, shown back to the person ("🎤 I heard: …"). */
  heard: string[];
  images: TurnImage[];
  /** Document text for the prompt, already cut to the budget. */
  documents: string[];
  /** One honest sentence per attachment that could not be used. */
  problems: string[];
  /** Nothing usable is left: answer with `problems` alone, without a model call. */
  problemsOnly: boolean;
}

export interface PrepareTurnMediaOptions {
  intent: Intent;
  adapter: ChannelAdapter;
  settings: MediaSettings;
  logger: Logger;
  abortSignal?: AbortSignal;
}

/**
 * Core's media step, before the agent runs: each attachment is downloaded through its channel
 * under the size cap, typed from its bytes and turned into an image part, a transcript or
 * document text, each under its own time budget so a bad file never stalls the lane.
 */
export async function prepareTurnMedia(options: PrepareTurnMediaOptions): Promise<TurnMedia> {
  const { intent, settings } = options;
  const media: TurnMedia = {
    text: intent.text,
    heard: [],
    images: [],
    documents: [],
    problems: [],
    problemsOnly: false,
  };
  const personId = intent.userId;
  const blockedUntil = settings.refusals?.blockedUntil(personId);
  if (blockedUntil !== undefined) {
    // Past the allowance nothing is downloaded: one sentence answers all of the message's files.
    media.problems.push(refusalAllowanceText(settings.refusals?.perDay ?? 0, blockedUntil));
    media.problemsOnly = media.text.trim() === '';
    return media;
  }
  const turnDeadline = AbortSignal.timeout(settings.timeBudgetMs * TURN_TIME_BUDGETS);
  const budget = { bytesLeft: settings.maxBytes * TURN_BYTES_PER_FILE_CAP, deadline: turnDeadline };
  let refused = false;
  for (const attachment of intent.attachments.slice(0, MAX_ATTACHMENTS_PER_TURN)) {
    try {
      await prepareOne(attachment, media, budget, options);
    } catch (error) {
      refused = true;
      options.logger.warn(
        { kind: attachment.kind, code: error instanceof NexusError ? error.code : 'internal' },
        'attachment not used',
      );
      media.problems.push(attachmentProblemText(attachment, error, settings.maxBytes));
    }
  }
  if (refused) settings.refusals?.record(personId);
  const skipped = intent.attachments.length - MAX_ATTACHMENTS_PER_TURN;
  if (skipped > 0)
    media.problems.push(
      `I read the first ${MAX_ATTACHMENTS_PER_TURN} attachments of your message and left out the other ${skipped}.`,
    );
  if (media.heard.length > 0) {
    const text = [intent.text.trim(), ...media.heard].filter((part) => part !== '').join('\n');
    // A long recording can transcribe to more text than any typed message may hold: keep the
    // start and tell the model, rather than fail the turn.
    media.text =
      text.length <= MAX_INTENT_TEXT_CHARS
        ? text
        : `${text.slice(0, MAX_INTENT_TEXT_CHARS)}\n[transcript cut: ${text.length - MAX_INTENT_TEXT_CHARS} characters left out]`;
  }
  media.problemsOnly =
    media.problems.length > 0 &&
    media.text.trim() === '' &&
    media.images.length === 0 &&
    media.documents.length === 0;
  return media;
}

/** What one message's attachments may still use (see the TURN_* limits above). */
interface TurnBudget {
  bytesLeft: number;
  deadline: AbortSignal;
}

async function prepareOne(
  attachment: Attachment,
  media: TurnMedia,
  budget: TurnBudget,
  options: PrepareTurnMediaOptions,
): Promise<void> {
  const { settings, adapter } = options;
  // Answered from the attachment's kind alone, so nothing is downloaded only to be refused.
  if ((attachment.kind === 'image' || attachment.kind === 'sticker') && !settings.vision) {
    media.problems.push(NO_VISION_TEXT);
    return;
  }
  if ((attachment.kind === 'voice' || attachment.kind === 'audio') && !settings.transcriber) {
    media.problems.push(NO_TRANSCRIBER_TEXT);
    return;
  }
  if (attachment.kind === 'video') {
    throw unsupported('videos are not supported yet.');
  }
  if (attachment.sizeBytes !== undefined && attachment.sizeBytes > settings.maxBytes) {
    throw new NexusError({ code: 'attachment_too_large', message: 'over the size cap' });
  }
  if (!adapter.fetchAttachment) {
    throw new NexusError({ code: 'attachment_unavailable', message: `${adapter.name} cannot fetch files` });
  }
  const deadline = AbortSignal.timeout(settings.timeBudgetMs);
  const signal = AbortSignal.any([
    deadline,
    budget.deadline,
    ...(options.abortSignal ? [options.abortSignal] : []),
  ]);
  const maxBytes = Math.min(settings.maxBytes, budget.bytesLeft);
  // Past the message's share, say so rather than blame the file's own size.
  const overMessageCap = () =>
    unsupported(
      `together with the other files in your message it goes over the ${formatMegabytes(
        settings.maxBytes * TURN_BYTES_PER_FILE_CAP,
      )} one message may carry.`,
    );
  if (maxBytes <= 0) throw overMessageCap();
  const keptLeft = (await settings.store?.bytesLeftToday(options.intent.userId)) ?? Number.POSITIVE_INFINITY;
  if (keptLeft <= 0) throw dailyQuotaReached();
  const fetched = await withDeadline(
    adapter.fetchAttachment({ attachment, maxBytes, abortSignal: signal }),
    signal,
  ).catch((error: unknown) => {
    if (maxBytes < settings.maxBytes && toNexusError(error).code === 'attachment_too_large')
      throw overMessageCap();
    throw error;
  });
  if (fetched.bytes.byteLength > maxBytes) {
    if (maxBytes < settings.maxBytes) throw overMessageCap();
    throw new NexusError({ code: 'attachment_too_large', message: 'over the size cap' });
  }
  budget.bytesLeft -= fetched.bytes.byteLength;
  if (fetched.bytes.byteLength > keptLeft) throw dailyQuotaReached();
  await useAttachment(attachment, fetched.bytes, media, signal, options);
}

/**
 * Turns one downloaded attachment into what the model gets, by the type its bytes show. Only an
 * attachment used this way is kept, under the person the turn ran for, so forgetting them
 * removes it (docs/media.md); a file refused or unreadable is never written.
 */
async function useAttachment(
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

function dailyQuotaReached(): NexusError {
  return unsupported(
    'you have sent as many files today as I keep for one person in a day. Try again tomorrow.',
  );
}

function unsupported(message: string): NexusError {
  return new NexusError({ code: 'attachment_unsupported', message });
}

/** Rejects when the signal fires even if the work ignores it (a channel that does not honour abort). */
function withDeadline<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(deadlineError(signal));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(deadlineError(signal));
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

function deadlineError(signal: AbortSignal): unknown {
  const reason = signal.reason as { name?: string } | undefined;
  if (reason?.name === 'TimeoutError')
    return new NexusError({ code: 'timeout', message: 'time budget used up' });
  return reason;
}
