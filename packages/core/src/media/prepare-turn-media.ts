import { type Attachment, MAX_INTENT_TEXT_CHARS, NexusError, toNexusError } from '@nexus/protocol';
import {
  attachmentProblemText,
  formatMegabytes,
  NO_TRANSCRIBER_TEXT,
  NO_VISION_TEXT,
  refusalAllowanceText,
} from './media-reply-text.ts';
import type { PrepareTurnMediaOptions, TurnMedia } from './turn-media.ts';
import { useAttachment } from './use-attachment.ts';
import { withDeadline } from './with-deadline.ts';

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
  // A kind the channel does not declare (capabilities.mediaIn) never came from the platform as
  // that kind: refused before anything is downloaded, whatever the intent claims.
  if (!adapter.capabilities.mediaIn.includes(attachment.kind)) {
    throw unsupported(`${adapter.name} does not take ${attachment.kind} files.`);
  }
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

function dailyQuotaReached(): NexusError {
  return unsupported(
    'you have sent as many files today as I keep for one person in a day. Try again tomorrow.',
  );
}

function unsupported(message: string): NexusError {
  return new NexusError({ code: 'attachment_unsupported', message });
}
