import { randomBytes } from 'node:crypto';
import { proto, type WAMessage } from '@whiskeysockets/baileys';

/** The bot's account as Baileys reports it in `sock.user` (device suffix included). */
export const TEST_BOT_USER = {
  id: '15550000001:7@s.whatsapp.net',
  lid: '210000000001:7@lid',
  name: 'Nexus',
} as const;
/** Normalised identities of TEST_BOT_USER, as mentions carry them. */
export const TEST_BOT_PHONE_JID = '15550000001@s.whatsapp.net';
export const TEST_BOT_LID = '210000000001@lid';

/** A message id shaped like WhatsApp's own (`3EB0` + hex). */
export function whatsAppMessageId(): string {
  return `3EB0${randomBytes(8).toString('hex').toUpperCase()}`;
}

interface CommonOptions {
  id?: string;
  /** Seconds, like `messageTimestamp`; defaults to now. */
  timestampSeconds?: number;
  pushName?: string;
}

function build(fields: {
  key: proto.IMessageKey & {
    participantAlt?: string;
    remoteJidAlt?: string;
  };
  message: proto.IMessage;
  common: CommonOptions;
}): WAMessage {
  const seconds = fields.common.timestampSeconds ?? Math.floor(Date.now() / 1000);
  const created = proto.WebMessageInfo.create({
    key: { id: fields.common.id ?? whatsAppMessageId(), ...fields.key },
    messageTimestamp: seconds,
    message: fields.message,
    ...(fields.common.pushName ? { pushName: fields.common.pushName } : {}),
  });
  return created as WAMessage;
}

/** A one-to-one text message (`conversation`), as a phone sends it. */
export function buildDirectMessage(
  options: CommonOptions & { from: string; fromAlt?: string; text: string },
): WAMessage {
  return build({
    key: {
      remoteJid: options.from,
      fromMe: false,
      ...(options.fromAlt ? { remoteJidAlt: options.fromAlt } : {}),
    },
    message: { conversation: options.text },
    common: options,
  });
}

/**
 * A group text message (`extendedTextMessage`) from `participant` (usually a LID, with the phone
 * JID as `participantAlt`), optionally mentioning JIDs or quoting an earlier message.
 */
export function buildGroupMessage(
  options: CommonOptions & {
    group: string;
    participant: string;
    participantAlt?: string;
    text: string;
    mentionedJids?: string[];
    quoted?: { id: string; participant: string; text?: string };
  },
): WAMessage {
  const contextInfo: proto.IContextInfo = {
    ...(options.mentionedJids ? { mentionedJid: options.mentionedJids } : {}),
    ...(options.quoted
      ? {
          stanzaId: options.quoted.id,
          participant: options.quoted.participant,
          quotedMessage: { conversation: options.quoted.text ?? '' },
        }
      : {}),
  };
  return build({
    key: {
      remoteJid: options.group,
      fromMe: false,
      participant: options.participant,
      ...(options.participantAlt ? { participantAlt: options.participantAlt } : {}),
    },
    message: { extendedTextMessage: { text: options.text, contextInfo } },
    common: options,
  });
}

/** A disappearing-mode message: the content sits inside `ephemeralMessage`. */
export function buildEphemeralMessage(
  options: CommonOptions & { from: string; text?: string; imageCaption?: string },
): WAMessage {
  const inner: proto.IMessage =
    options.imageCaption === undefined
      ? { extendedTextMessage: { text: options.text ?? '' } }
      : { imageMessage: { caption: options.imageCaption, mimetype: 'image/jpeg', fileLength: 2048 } };
  return build({
    key: { remoteJid: options.from, fromMe: false },
    message: { ephemeralMessage: { message: inner } },
    common: options,
  });
}

/** A view-once photo with a caption (`viewOnceMessageV2`). */
export function buildViewOnceMessage(options: CommonOptions & { from: string; caption: string }): WAMessage {
  return build({
    key: { remoteJid: options.from, fromMe: false },
    message: {
      viewOnceMessageV2: {
        message: { imageMessage: { caption: options.caption, mimetype: 'image/jpeg', viewOnce: true } },
      },
    },
    common: options,
  });
}

/** The echo of a message the bot's own account sent (`emitOwnEvents`). */
export function buildFromMeMessage(options: CommonOptions & { to: string; text: string }): WAMessage {
  return build({
    key: { remoteJid: options.to, fromMe: true },
    message: { conversation: options.text },
    common: options,
  });
}

/** A status update posted by a contact. */
export function buildStatusBroadcastMessage(
  options: CommonOptions & { participant: string; text: string },
): WAMessage {
  return build({
    key: { remoteJid: 'status@broadcast', fromMe: false, participant: options.participant },
    message: { extendedTextMessage: { text: options.text } },
    common: options,
  });
}

/** A post in a followed channel (newsletter). */
export function buildNewsletterMessage(
  options: CommonOptions & { newsletter: string; text: string },
): WAMessage {
  return build({
    key: { remoteJid: options.newsletter, fromMe: false },
    message: { conversation: options.text },
    common: options,
  });
}

/**
 * A person edits a message they sent earlier, as the phone sends it: a new message in the same
 * chat whose content is a `protocolMessage` of type MESSAGE_EDIT naming the original by its key
 * (from the sender's side: `fromMe: true`) with the new content in `editedMessage` and the edit
 * time in `timestampMs`. WhatsApp clients wrap it in `editedMessage` (a FutureProofMessage);
 * Baileys sends it bare (`wrapped: false`). Simplification: the new content is a text message.
 */
export function buildEditMessage(
  options: CommonOptions & {
    original: WAMessage;
    text: string;
    mentionedJids?: string[];
    /** Defaults to now. */
    editedAtMs?: number;
    wrapped?: boolean;
  },
): WAMessage {
  const { original } = options;
  const editedMessage: proto.IMessage = options.mentionedJids
    ? { extendedTextMessage: { text: options.text, contextInfo: { mentionedJid: options.mentionedJids } } }
    : { conversation: options.text };
  const protocolMessage: proto.Message.IProtocolMessage = {
    key: ownKeyOf(original),
    type: proto.Message.ProtocolMessage.Type.MESSAGE_EDIT,
    editedMessage,
    timestampMs: options.editedAtMs ?? Date.now(),
  };
  return build({
    key: senderKeyOf(original),
    message:
      options.wrapped === false ? { protocolMessage } : { editedMessage: { message: { protocolMessage } } },
    common: options,
  });
}

/**
 * "Delete for everyone": a `protocolMessage` of type REVOKE naming the original. By default the
 * author deletes it; in a group an admin may (`byParticipant`), and the key then names the
 * author as `participant` with `fromMe: false`.
 */
export function buildRevokeMessage(
  options: CommonOptions & { original: WAMessage; byParticipant?: string },
): WAMessage {
  const { original } = options;
  const byAdmin = options.byParticipant !== undefined;
  return build({
    key: byAdmin
      ? { remoteJid: original.key.remoteJid ?? '', fromMe: false, participant: options.byParticipant ?? null }
      : senderKeyOf(original),
    message: {
      protocolMessage: {
        key: byAdmin
          ? {
              remoteJid: original.key.remoteJid ?? null,
              fromMe: false,
              id: original.key.id ?? null,
              participant: original.key.participant ?? null,
            }
          : ownKeyOf(original),
        type: proto.Message.ProtocolMessage.Type.REVOKE,
      },
    },
    common: options,
  });
}

/** The key of a new message from the original's sender, in the original's chat. */
function senderKeyOf(
  original: WAMessage,
): proto.IMessageKey & { participantAlt?: string; remoteJidAlt?: string } {
  const key = original.key as proto.IMessageKey & { participantAlt?: string; remoteJidAlt?: string };
  return {
    remoteJid: key.remoteJid ?? null,
    fromMe: false,
    ...(key.participant ? { participant: key.participant } : {}),
    ...(key.participantAlt ? { participantAlt: key.participantAlt } : {}),
    ...(key.remoteJidAlt ? { remoteJidAlt: key.remoteJidAlt } : {}),
  };
}

/** The original's key as its sender holds it: their own message, in a DM addressed to the bot. */
function ownKeyOf(original: WAMessage): proto.IMessageKey {
  const remoteJid = original.key.remoteJid ?? '';
  const group = remoteJid.endsWith('@g.us');
  return { remoteJid: group ? remoteJid : TEST_BOT_PHONE_JID, fromMe: true, id: original.key.id ?? null };
}
