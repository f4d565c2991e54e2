import { asEditIntent, deleteIntentOf } from '@nexus/channel-kit';
import { normalizeMessageContent, proto, type WAMessage } from '@whiskeysockets/baileys';
import {
  addressOf,
  type BotIdentity,
  type MessageMapping,
  timestampSeconds,
  whatsAppIntentId,
  whatsAppMessageToIntent,
} from './to-intent.ts';

/**
 * Turns a "message edited" or "deleted for everyone" notice into an intent, or undefined when
 * the message is no such notice (then it is an ordinary message). WhatsApp sends both as a new
 * message in the same chat whose content is a `protocolMessage` (bare, or wrapped in
 * `editedMessage`) naming the original by its key id: MESSAGE_EDIT with the new content in
 * `editedMessage` and the edit time in `timestampMs`, or REVOKE. The target is
 * `<chat>/<original id>`, exactly the original's intent id; an edit's id adds `:edit:<timestampMs>`
 * and a delete's `:delete`, both the same when WhatsApp hands the notice over again.
 */
export function revisionToIntent(options: {
  message: WAMessage;
  channel: string;
  bot: BotIdentity;
  now: () => number;
}): MessageMapping | undefined {
  const { message } = options;
  const protocol = normalizeMessageContent(message.message)?.protocolMessage;
  const Type = proto.Message.ProtocolMessage.Type;
  if (!protocol || (protocol.type !== Type.MESSAGE_EDIT && protocol.type !== Type.REVOKE)) return undefined;
  const remoteJid = message.key.remoteJid;
  const targetId = protocol.key?.id;
  if (!remoteJid || !targetId || !message.key.id) return { skip: 'incomplete_key' };
  // The bot's own edits and deletes come back as its own events.
  if (message.key.fromMe) return { skip: 'from_me' };
  const seconds = timestampSeconds(message.messageTimestamp) ?? Math.floor(options.now() / 1000);

  if (protocol.type === Type.MESSAGE_EDIT) {
    if (!protocol.editedMessage) return { skip: 'no_content' };
    // The new content read exactly as the original was, under the original's key.
    const mapping = whatsAppMessageToIntent({
      ...options,
      message: { ...message, key: { ...message.key, id: targetId }, message: protocol.editedMessage },
    });
    if ('skip' in mapping) return mapping;
    const editedAtMs = Number(protocol.timestampMs ?? 0);
    const version = Number.isFinite(editedAtMs) && editedAtMs > 0 ? editedAtMs : seconds * 1000;
    return { timestampSeconds: seconds, intent: { ...asEditIntent(mapping.intent, version), raw: message } };
  }

  const address = addressOf(message.key);
  if (!address) return { skip: 'incomplete_key' };
  return {
    timestampSeconds: seconds,
    intent: deleteIntentOf({
      targetIntentId: whatsAppIntentId(remoteJid, targetId),
      channel: options.channel,
      conversation: { id: address.conversationId, kind: address.group ? 'group' : 'direct' },
      sender: {
        platformId: address.sender,
        ...(message.pushName ? { displayName: message.pushName } : {}),
      },
      userId: `${options.channel}:${address.sender}`,
      receivedAt: new Date(seconds * 1000),
      raw: message,
    }),
  };
}
