import type { Attachment, IntentInput } from '@nexus/protocol';
import {
  getContentType,
  isJidBroadcast,
  isJidGroup,
  isJidNewsletter,
  isJidStatusBroadcast,
  isLidUser,
  jidNormalizedUser,
  normalizeMessageContent,
  type proto,
  type WAMessage,
} from '@whiskeysockets/baileys';

/** The bot's own identities: WhatsApp mentions it by phone-number JID or by LID. */
export interface BotIdentity {
  phoneJid?: string;
  lidJid?: string;
}

/** The bot's identities from `sock.user` (`id` is usually the phone JID, `lid` the LID). */
export function botIdentityOf(user: { id?: string; lid?: string } | undefined): BotIdentity {
  const identity: BotIdentity = {};
  for (const jid of [user?.id, user?.lid]) {
    if (!jid) continue;
    if (isLidUser(jid)) identity.lidJid = jidNormalizedUser(jid);
    else identity.phoneJid = jidNormalizedUser(jid);
  }
  return identity;
}

export type SkipReason =
  | 'incomplete_key'
  | 'from_me'
  | 'status_broadcast'
  | 'newsletter'
  | 'broadcast_list'
  | 'no_content';

export type MessageMapping = { intent: IntentInput; timestampSeconds: number } | { skip: SkipReason };

/** Stable id of one WhatsApp message, also the de-duplication key. */
export function whatsAppIntentId(remoteJid: string, messageId: string): string {
  return `${remoteJid}/${messageId}`;
}

export function parseWhatsAppIntentId(
  intentId: string,
): { remoteJid: string; messageId: string } | undefined {
  const slash = intentId.lastIndexOf('/');
  if (slash <= 0 || slash === intentId.length - 1) return undefined;
  return { remoteJid: intentId.slice(0, slash), messageId: intentId.slice(slash + 1) };
}

export function timestampSeconds(value: WAMessage['messageTimestamp']): number | undefined {
  if (value === null || value === undefined) return undefined;
  const seconds = Number(value);
  return Number.isFinite(seconds) && seconds > 0 ? seconds : undefined;
}

/** LID first: it is WhatsApp's canonical identity in v7; the phone JID is only a fallback. */
function preferLid(...jids: (string | null | undefined)[]): string | undefined {
  const present = jids.filter((jid): jid is string => typeof jid === 'string' && jid.length > 0);
  const lid = present.find((jid) => isLidUser(jid));
  const chosen = lid ?? present[0];
  return chosen ? jidNormalizedUser(chosen) : undefined;
}

/**
 * WhatsApp writes a mention as `@<user>` in the text (phone digits or LID number); the model
 * should read the question, not the assistant's own number.
 */
function withoutBotMentions(text: string, bot: BotIdentity): string {
  const users = [bot.phoneJid, bot.lidJid]
    .map((jid) => jid?.split('@')[0])
    .filter((user): user is string => Boolean(user));
  if (users.length === 0) return text;
  const pattern = new RegExp(`@(?:${users.join('|')})(?![0-9])`, 'g');
  const stripped = text
    .replace(pattern, '')
    .replace(/[ \t]{2,}/g, ' ')
    .trim();
  return stripped === '' ? text : stripped;
}

function isBot(jid: string | null | undefined, bot: BotIdentity): boolean {
  if (!jid) return false;
  const normalised = jidNormalizedUser(jid);
  return normalised === bot.phoneJid || normalised === bot.lidJid;
}

type MediaKey = 'imageMessage' | 'videoMessage' | 'audioMessage' | 'documentMessage' | 'stickerMessage';

function attachmentsOf(content: proto.IMessage, fileId: string): Attachment[] {
  const media: [MediaKey, Attachment['kind']][] = [
    ['imageMessage', 'image'],
    ['videoMessage', 'video'],
    ['audioMessage', content.audioMessage?.ptt ? 'voice' : 'audio'],
    ['documentMessage', 'document'],
    ['stickerMessage', 'sticker'],
  ];
  const found: Attachment[] = [];
  for (const [key, kind] of media) {
    const part = content[key] as
      | { mimetype?: string | null; fileLength?: unknown; fileName?: string | null }
      | null
      | undefined;
    if (!part) continue;
    const size = Number(part.fileLength ?? Number.NaN);
    found.push({
      kind,
      platformFileId: fileId,
      ...(part.mimetype ? { mimeType: part.mimetype } : {}),
      ...(part.fileName ? { name: part.fileName } : {}),
      ...(Number.isFinite(size) && size >= 0 ? { sizeBytes: size } : {}),
    });
  }
  return found;
}

function contextInfoOf(content: proto.IMessage): proto.IContextInfo | undefined {
  const type = getContentType(content);
  if (!type) return undefined;
  const part = content[type] as { contextInfo?: proto.IContextInfo | null } | null | undefined;
  return typeof part === 'object' && part !== null ? (part.contextInfo ?? undefined) : undefined;
}

/**
 * Who wrote a message and where: in a group the participant, else the chat; LID first. The
 * conversation id is the group, or the person (the same for their phone JID and LID).
 */
export function addressOf(
  key: WAMessage['key'],
): { group: boolean; sender: string; conversationId: string } | undefined {
  const remoteJid = key.remoteJid;
  if (!remoteJid) return undefined;
  const group = isJidGroup(remoteJid) === true;
  const sender = group
    ? preferLid(key.participant, key.participantAlt)
    : preferLid(remoteJid, key.remoteJidAlt);
  return sender ? { group, sender, conversationId: group ? remoteJid : sender } : undefined;
}

/**
 * Turns one upserted WhatsApp message into an Intent, or says why it is not one. Unwraps
 * ephemeral and view-once wrappers; in groups the sender is the participant and the assistant is
 * addressed when its phone JID or LID is mentioned or one of its messages is replied to.
 */
export function whatsAppMessageToIntent(options: {
  message: WAMessage;
  channel: string;
  bot: BotIdentity;
  now: () => number;
}): MessageMapping {
  const { message, bot } = options;
  const { key } = message;
  const remoteJid = key.remoteJid;
  if (!remoteJid || !key.id) return { skip: 'incomplete_key' };
  if (key.fromMe) return { skip: 'from_me' };
  if (isJidStatusBroadcast(remoteJid)) return { skip: 'status_broadcast' };
  if (isJidNewsletter(remoteJid)) return { skip: 'newsletter' };
  if (isJidBroadcast(remoteJid)) return { skip: 'broadcast_list' };

  const content = normalizeMessageContent(message.message);
  if (!content) return { skip: 'no_content' };
  const id = whatsAppIntentId(remoteJid, key.id);
  const text =
    content.conversation ??
    content.extendedTextMessage?.text ??
    content.imageMessage?.caption ??
    content.videoMessage?.caption ??
    content.documentMessage?.caption ??
    '';
  const attachments = attachmentsOf(content, id);
  if (text.trim() === '' && attachments.length === 0) return { skip: 'no_content' };

  const address = addressOf(key);
  if (!address) return { skip: 'incomplete_key' };
  const { group, sender } = address;
  const contextInfo = contextInfoOf(content);
  const mentioned = (contextInfo?.mentionedJid ?? []).some((jid) => isBot(jid, bot));
  const repliedToBot = isBot(contextInfo?.participant, bot);
  const seconds = timestampSeconds(message.messageTimestamp);
  const receivedAtMs = seconds === undefined ? options.now() : seconds * 1000;

  return {
    timestampSeconds: seconds ?? Math.floor(receivedAtMs / 1000),
    intent: {
      id,
      channel: options.channel,
      conversation: { id: group ? remoteJid : sender, kind: group ? 'group' : 'direct' },
      sender: {
        platformId: sender,
        ...(message.pushName ? { displayName: message.pushName } : {}),
      },
      userId: `${options.channel}:${sender}`,
      text: mentioned ? withoutBotMentions(text, bot) : text,
      attachments,
      ...(contextInfo?.stanzaId ? { replyTo: whatsAppIntentId(remoteJid, contextInfo.stanzaId) } : {}),
      mentionsAssistant: group ? mentioned || repliedToBot : true,
      receivedAt: new Date(receivedAtMs).toISOString(),
      raw: message,
    },
  };
}
