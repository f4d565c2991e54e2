import type { ReplyMedia } from '@nexus/protocol';
import { isConversationId } from './conversation-index.ts';
import type { ChatMessage, ChatMessageRole, ChatMessageState, SentAttachment } from './conversation-state.ts';

/**
 * Reply files above this many base64 characters are kept without their bytes (storage holds
 * ~5 MB in all); after a reload the page shows their name and size only.
 */
const MAX_STORED_MEDIA_CHARS = 256 * 1024;
const attachmentKinds: readonly SentAttachment['kind'][] = ['image', 'audio', 'voice', 'document'];
const mediaKinds: readonly ReplyMedia['kind'][] = ['image', 'file', 'audio'];
const roles: readonly ChatMessageRole[] = ['user', 'assistant', 'error'];
const states: readonly ChatMessageState[] = ['pending', 'sent', 'failed', 'streaming', 'done'];

/** One conversation as kept in storage. */
export interface StoredConversation {
  conversationId: string;
  lastSeq: number;
  messages: ChatMessage[];
}

/**
 * A stored conversation as read back from storage, which can be missing, full or hand-edited:
 * every field is checked and malformed messages are dropped, never trusted.
 */
export function toStoredConversation(value: unknown): StoredConversation | undefined {
  if (!isRecord(value)) return undefined;
  const { conversationId, lastSeq, messages } = value;
  if (!isConversationId(conversationId)) return undefined;
  if (typeof lastSeq !== 'number' || !Number.isSafeInteger(lastSeq) || lastSeq < 0) return undefined;
  if (!Array.isArray(messages)) return undefined;
  return { conversationId, lastSeq, messages: messages.flatMap((message) => toChatMessage(message) ?? []) };
}

function toChatMessage(value: unknown): ChatMessage | undefined {
  if (!isRecord(value)) return undefined;
  const {
    id,
    role,
    text,
    state,
    failure,
    retryable,
    attachments,
    media,
    edited,
    deleted,
    superseded,
    stopped,
    restarting,
    chosenReplyId,
    question,
    unprompted,
  } = value;
  if (typeof id !== 'string' || typeof text !== 'string') return undefined;
  if (!roles.includes(role as ChatMessageRole) || !states.includes(state as ChatMessageState))
    return undefined;
  const message: ChatMessage = { id, role: role as ChatMessageRole, text, state: state as ChatMessageState };
  if (typeof failure === 'string') message.failure = failure;
  if (typeof retryable === 'boolean') message.retryable = retryable;
  if (edited === true) message.edited = true;
  if (unprompted === true) message.unprompted = true;
  if (deleted === true) message.deleted = true;
  if (superseded === true) message.superseded = true;
  if (stopped === true) message.stopped = true;
  if (restarting === true) message.restarting = true;
  if (typeof chosenReplyId === 'string') message.chosenReplyId = chosenReplyId;
  if (typeof question === 'string') message.question = question;
  if (Array.isArray(attachments))
    message.attachments = attachments.flatMap((entry) => toAttachment(entry) ?? []);
  if (Array.isArray(media)) message.media = media.flatMap((entry) => toReplyMedia(entry) ?? []);
  return message;
}

function toAttachment(value: unknown): SentAttachment | undefined {
  if (!isRecord(value) || !attachmentKinds.includes(value.kind as SentAttachment['kind'])) return undefined;
  return {
    kind: value.kind as SentAttachment['kind'],
    ...(typeof value.name === 'string' ? { name: value.name } : {}),
    ...(typeof value.sizeBytes === 'number' ? { sizeBytes: value.sizeBytes } : {}),
    ...(typeof value.uploadId === 'string' ? { uploadId: value.uploadId } : {}),
  };
}

function toReplyMedia(value: unknown): ReplyMedia | undefined {
  if (!isRecord(value) || !mediaKinds.includes(value.kind as ReplyMedia['kind'])) return undefined;
  const { mimeType, name, sizeBytes, base64 } = value;
  if (typeof mimeType !== 'string' || typeof name !== 'string' || typeof sizeBytes !== 'number')
    return undefined;
  return {
    kind: value.kind as ReplyMedia['kind'],
    mimeType,
    name,
    sizeBytes,
    base64: typeof base64 === 'string' && /^[A-Za-z0-9+/=]*$/.test(base64) ? base64 : '',
  };
}

export function withoutLargeMedia(message: ChatMessage): ChatMessage {
  if (!message.media?.some((media) => media.base64.length > MAX_STORED_MEDIA_CHARS)) return message;
  return {
    ...message,
    media: message.media.map((media) =>
      media.base64.length > MAX_STORED_MEDIA_CHARS ? { ...media, base64: '' } : media,
    ),
  };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
