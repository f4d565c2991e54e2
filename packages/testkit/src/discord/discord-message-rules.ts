import type { UploadedDiscordFile } from './fake-discord-cdn.ts';

/** Bits of the message flags (discord-api-spec `MessageFlags`). */
const SUPPRESS_EMBEDS = 1 << 2;
const EPHEMERAL = 1 << 6;
const SUPPRESS_NOTIFICATIONS = 1 << 12;
const IS_VOICE_MESSAGE = 1 << 13;
const IS_COMPONENTS_V2 = 1 << 15;

/** Which flags each call may set, as Discord's docs list them for that call. */
const ALLOWED_FLAGS = {
  // Create Message: SUPPRESS_EMBEDS, SUPPRESS_NOTIFICATIONS, IS_VOICE_MESSAGE, IS_COMPONENTS_V2.
  create: SUPPRESS_EMBEDS | SUPPRESS_NOTIFICATIONS | IS_VOICE_MESSAGE | IS_COMPONENTS_V2,
  // Create Followup Message: SUPPRESS_EMBEDS, EPHEMERAL, SUPPRESS_NOTIFICATIONS, IS_COMPONENTS_V2.
  followup: SUPPRESS_EMBEDS | EPHEMERAL | SUPPRESS_NOTIFICATIONS | IS_COMPONENTS_V2,
  // Edit Message / Edit Webhook Message / Edit Original Interaction Response:
  // only SUPPRESS_EMBEDS and IS_COMPONENTS_V2.
  edit: SUPPRESS_EMBEDS | IS_COMPONENTS_V2,
} as const;

/** Message content: "up to 2000 characters" (bots; the docs' Create Message and Execute Webhook). */
export const DISCORD_MAX_CONTENT = 2000;
/** Create Message `nonce`: an integer or a string of at most 25 characters (discord-api-spec). */
const MAX_NONCE_LENGTH = 25;

type Refusal = [number, unknown];

function invalidFormBody(field: string, code: string, message: string): Refusal {
  return [
    400,
    { message: 'Invalid Form Body', code: 50035, errors: { [field]: { _errors: [{ code, message }] } } },
  ];
}

/**
 * What Discord answers a message body it refuses, or undefined when it takes it: content over
 * 2,000 characters (counted in code points), a string nonce over 25, flags the call does not
 * allow, and a new message with nothing in it (no content, embeds, files, stickers, components
 * or poll: error 50006).
 */
export function refuseMessageBody(
  kind: keyof typeof ALLOWED_FLAGS,
  body: Record<string, unknown>,
  files: readonly UploadedDiscordFile[],
): Refusal | undefined {
  const content = typeof body.content === 'string' ? body.content : undefined;
  if (content !== undefined && [...content].length > DISCORD_MAX_CONTENT) {
    return invalidFormBody(
      'content',
      'BASE_TYPE_MAX_LENGTH',
      `Must be ${DISCORD_MAX_CONTENT} or fewer in length.`,
    );
  }
  if (typeof body.nonce === 'string' && body.nonce.length > MAX_NONCE_LENGTH) {
    return invalidFormBody(
      'nonce',
      'BASE_TYPE_MAX_LENGTH',
      `Must be ${MAX_NONCE_LENGTH} or fewer in length.`,
    );
  }
  if (body.flags !== undefined && body.flags !== null) {
    const flags = Number(body.flags);
    if (!Number.isInteger(flags) || (flags & ~ALLOWED_FLAGS[kind]) !== 0) {
      return invalidFormBody('flags', 'MESSAGE_FLAGS_INVALID', 'Invalid flags for this call.');
    }
  }
  const hasSomething =
    (content !== undefined && content.trim() !== '') ||
    files.length > 0 ||
    nonEmptyArray(body.embeds) ||
    nonEmptyArray(body.sticker_ids) ||
    nonEmptyArray(body.components) ||
    nonEmptyArray(body.attachments) ||
    (body.poll !== undefined && body.poll !== null);
  const empties = kind === 'edit' ? content !== undefined && !hasSomething : !hasSomething;
  if (empties) return [400, { message: 'Cannot send an empty message', code: 50006 }];
  return undefined;
}

function nonEmptyArray(value: unknown): boolean {
  return Array.isArray(value) && value.length > 0;
}
