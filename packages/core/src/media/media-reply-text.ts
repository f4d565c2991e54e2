import type { Attachment } from '@nexus/protocol';
import { toNexusError } from '@nexus/protocol';

/** How a file is called in a reply: its name when the platform gave one. */
export function describeAttachment(attachment: Attachment): string {
  const noun =
    attachment.kind === 'voice'
      ? 'voice note'
      : attachment.kind === 'image' || attachment.kind === 'sticker'
        ? 'image'
        : attachment.kind === 'audio'
          ? 'audio file'
          : 'file';
  return attachment.name ? `${noun} "${attachment.name}"` : `${noun}`;
}

export const NO_VISION_TEXT =
  'The model I am configured with cannot see images, so I could not look at your image.';
export const NO_TRANSCRIBER_TEXT =
  'I cannot listen to voice notes or audio here: no transcription service is configured. Could you type it instead?';

/** One short, honest sentence for an attachment core could not use. */
export function attachmentProblemText(attachment: Attachment, error: unknown, maxBytes: number): string {
  const what = `your ${describeAttachment(attachment)}`;
  const failure = toNexusError(error);
  switch (failure.code) {
    case 'attachment_too_large':
      return `I could not open ${what}: it is larger than the ${formatMegabytes(maxBytes)} I accept.`;
    case 'attachment_corrupt':
      return `I could not read ${what}: it looks damaged or is not what its name says.`;
    case 'attachment_unsupported':
      return `I cannot read ${what}: ${failure.message}`;
    case 'timeout':
      return `I gave up on ${what}: it took too long to process.`;
    default:
      return `I could not fetch ${what}${failure.retryable ? '; please try sending it again' : ''}.`;
  }
}

/** The reply once a person's messages with unusable files used up their allowance. */
export function refusalAllowanceText(perDay: number, blockedUntil: number): string {
  const hours = Math.max(1, Math.ceil((blockedUntil - Date.now()) / (60 * 60 * 1000)));
  return `You have sent ${perDay} messages today with files I could not use, so I am not opening your attachments for now. I will look at them again in about ${hours} ${hours === 1 ? 'hour' : 'hours'}.`;
}

export function formatMegabytes(bytes: number): string {
  return `${Math.round((bytes / (1024 * 1024)) * 10) / 10} MB`;
}
