import type { ReplyEvent, ReplyMedia, ServerFrame } from '@nexus/protocol';

export type ChatMessageRole = 'user' | 'assistant' | 'error';
/** user: pending → sent | failed; assistant: streaming → done; error: done. */
export type ChatMessageState = 'pending' | 'sent' | 'failed' | 'streaming' | 'done';

export interface ChatMessage {
  /** clientMessageId for user messages, replyId for replies, `error-<seq>` for error events. */
  id: string;
  role: ChatMessageRole;
  text: string;
  state: ChatMessageState;
  /** Why a user message failed; shown beside it. */
  failure?: string;
  /** Whether sending the same message again may succeed (e.g. after a rate limit). */
  retryable?: boolean;
  /** Files the person sent with the message (described; the bytes stay on the server). */
  attachments?: SentAttachment[] | undefined;
  /** Files of a reply. `base64` is empty when the server (or this browser) no longer holds them. */
  media?: ReplyMedia[] | undefined;
  /** The person changed the text after sending it. */
  edited?: boolean | undefined;
  /** The person withdrew the message. */
  deleted?: boolean;
  /** A reply to a message that was edited or deleted afterwards: kept, but shown as outdated. */
  superseded?: boolean;
  /**
   * The person pressed Stop while this reply streamed: later text for it is not shown, and the
   * gateway keeps what was shown (its `reply.end`, marked stopped, confirms it).
   */
  stopped?: boolean;
  /**
   * An error saying the gateway was restarting: the message is kept (durable intake) and answered
   * once it is back, so this is a notice, removed when the next reply ends.
   */
  restarting?: boolean;
  /**
   * On a user message: the version of its answer the person chose (paging ‹1/2›); unset, the
   * newest. Only that one is shown, and only it is in the history the gateway gives the model.
   */
  chosenReplyId?: string;
  /** On a reply to a message edited since: the words it answered (shown when paged back to it). */
  question?: string;
  /**
   * A reply that answers none of the person's messages (a reminder): shown on its own, never as
   * a version of the answer before it.
   */
  unprompted?: boolean;
}

/** What the person attached to a message, as shown beside it. */
export interface SentAttachment {
  kind: 'image' | 'audio' | 'voice' | 'document';
  name?: string;
  sizeBytes?: number;
  /** Kept so a message still pending after a reload is sent again with its files. */
  uploadId?: string;
}

export interface ConversationState {
  conversationId: string;
  /** Highest event seq applied; events at or below it are replays already shown. */
  lastSeq: number;
  messages: ChatMessage[];
  /** What the assistant is doing now (typing, a status text); not persisted. */
  activity?: string | undefined;
  /** A problem not tied to one message; not persisted. */
  alert?: string | undefined;
  /**
   * Older history on the gateway: a seq, the exchanges before it are not shown here yet; null,
   * everything older is shown; unset, not read yet. Not persisted (storage keeps the newest
   * messages only), so each read of the newest page sets it again.
   */
  earlier?: number | null | undefined;
}

export const TYPING_ACTIVITY = 'Nexus is typing…';

export function emptyConversation(conversationId: string): ConversationState {
  return { conversationId, lastSeq: 0, messages: [] };
}

/** The reply being written, if any: what Stop stops. */
export function streamingReply(state: ConversationState): ChatMessage | undefined {
  return state.messages.findLast((message) => message.role === 'assistant' && message.state === 'streaming');
}

/**
 * Stops showing the reply that is streaming; the page keeps the text shown so far and tells the
 * gateway (a `cancel` frame) to stop generating and keep exactly that.
 */
export function stopStreaming(state: ConversationState): ConversationState {
  if (!state.messages.some((message) => message.state === 'streaming')) return state;
  const messages = state.messages.map((message) =>
    message.state === 'streaming' ? { ...message, state: 'done' as const, stopped: true } : message,
  );
  return { ...state, messages, activity: undefined };
}

export function addUserMessage(
  state: ConversationState,
  message: { clientMessageId: string; text: string; attachments?: SentAttachment[] },
): ConversationState {
  const entry: ChatMessage = {
    id: message.clientMessageId,
    role: 'user',
    text: message.text,
    state: 'pending',
    ...(message.attachments?.length ? { attachments: message.attachments } : {}),
  };
  return { ...state, messages: [...state.messages, entry], alert: undefined };
}

/**
 * Shows an edit (new text, marked edited) or a delete of one of the person's messages at once;
 * the answers given to it before stay visible but are marked outdated, and the new answer to an
 * edit arrives as a new reply after them.
 */
export function reviseUserMessage(
  state: ConversationState,
  revision: { targetClientMessageId: string; kind: 'edit' | 'delete'; text?: string },
): ConversationState {
  const index = findLastIndex(state.messages, revision.targetClientMessageId, 'user');
  if (index === -1) return state;
  const messages = state.messages.slice();
  const target = messages[index]!;
  messages[index] =
    revision.kind === 'edit'
      ? { ...target, text: revision.text ?? target.text, edited: true }
      : { ...target, text: '', attachments: undefined, deleted: true };
  for (let next = index + 1; next < messages.length && messages[next]!.role !== 'user'; next++) {
    const reply = messages[next]!;
    if (reply.role === 'assistant')
      messages[next] = { ...reply, superseded: true, question: reply.question ?? target.text };
  }
  // The answer to the new words will be the one shown.
  const { chosenReplyId: _chosen, ...revised } = messages[index]!;
  messages[index] = revised;
  return { ...state, messages, alert: undefined };
}

/**
 * Asks for another answer to a message (Regenerate, Try again): the answer to come is the one
 * shown; errors about the message are cleared (the gateway kept nothing of them).
 */
export function regenerateAnswer(state: ConversationState, targetClientMessageId: string): ConversationState {
  const index = findLastIndex(state.messages, targetClientMessageId, 'user');
  if (index === -1) return state;
  const { chosenReplyId: _chosen, ...target } = state.messages[index]!;
  const messages: ChatMessage[] = [...state.messages.slice(0, index), target];
  let next = index + 1;
  for (; next < state.messages.length && state.messages[next]!.role !== 'user'; next++) {
    const message = state.messages[next]!;
    if (message.role !== 'error') messages.push(message);
  }
  messages.push(...state.messages.slice(next));
  return { ...state, messages, alert: undefined };
}

/** Shows another version of a message's answer (see `chosenReplyId`). */
export function chooseAnswer(
  state: ConversationState,
  targetClientMessageId: string,
  replyId: string,
): ConversationState {
  return updateMessage(state, targetClientMessageId, 'user', (message) => ({
    ...message,
    chosenReplyId: replyId,
  }));
}

/** Marks a failed user message as pending again, so it can be sent once more under the same id. */
export function markPending(state: ConversationState, clientMessageId: string): ConversationState {
  return updateMessage(state, clientMessageId, 'user', (message) => ({
    id: message.id,
    role: message.role,
    text: message.text,
    state: 'pending',
  }));
}

/**
 * Applies one server frame. Pure, and idempotent for events: an event whose seq is not above
 * `lastSeq` was already applied (a resume replays from the last seq the server knows we saw).
 */
export function applyServerFrame(state: ConversationState, frame: ServerFrame): ConversationState {
  switch (frame.type) {
    case 'sent':
      return withMessageSentElsewhere(state, frame);
    case 'accepted':
      return updateMessage(state, frame.clientMessageId, 'user', (message) => ({
        ...message,
        state: 'sent',
      }));
    case 'error':
      if (frame.clientMessageId === undefined) return { ...state, alert: frame.message };
      // An edit or delete has its own id and no message of its own: say it failed.
      if (findLastIndex(state.messages, frame.clientMessageId, 'user') === -1) {
        return { ...state, alert: `That change was not made: ${frame.message}` };
      }
      return updateMessage(state, frame.clientMessageId, 'user', (message) => ({
        ...message,
        state: 'failed',
        failure: frame.message,
        retryable: frame.retryable,
      }));
    case 'resumed':
      if (frame.conversationId !== state.conversationId) return state;
      // A server that restarted without its seq counters starts again below our lastSeq;
      // without this, every later event would look like a replay and be dropped.
      return frame.complete
        ? { ...state, lastSeq: Math.min(state.lastSeq, frame.lastSeq) }
        : incompleteResume({ ...state, lastSeq: Math.min(state.lastSeq, frame.lastSeq) });
    case 'event':
      if (frame.conversationId !== state.conversationId || frame.seq <= state.lastSeq) return state;
      if (frame.unprompted && frame.event.type === 'reply.start')
        return withReply(
          applyReplyEvent({ ...state, lastSeq: frame.seq }, frame.event, frame.seq),
          frame.event.replyId,
          (message) => ({ ...message, unprompted: true }),
        );
      return applyReplyEvent({ ...state, lastSeq: frame.seq }, frame.event, frame.seq);
    default:
      return state;
  }
}

/**
 * A message the person sent from another tab or device: shown at once, before this copy's own
 * unsent messages, so its reply (streaming here next) is drawn under it. Once held, the same
 * message from the history read is not added again.
 */
function withMessageSentElsewhere(
  state: ConversationState,
  frame: Extract<ServerFrame, { type: 'sent' }>,
): ConversationState {
  if (frame.conversationId !== state.conversationId) return state;
  if (findLastIndex(state.messages, frame.clientMessageId, 'user') !== -1) return state;
  const message: ChatMessage = {
    id: frame.clientMessageId,
    role: 'user',
    text: frame.text,
    state: 'sent',
    ...(frame.attachments === undefined
      ? {}
      : {
          attachments: frame.attachments.map(({ kind, name, sizeBytes }) => ({
            kind,
            ...(name === undefined ? {} : { name }),
            ...(sizeBytes === undefined ? {} : { sizeBytes }),
          })),
        }),
  };
  const unsent = state.messages.findIndex(
    (held) => held.role === 'user' && (held.state === 'pending' || held.state === 'failed'),
  );
  const at = unsent === -1 ? state.messages.length : unsent;
  return { ...state, messages: [...state.messages.slice(0, at), message, ...state.messages.slice(at)] };
}

function applyReplyEvent(state: ConversationState, event: ReplyEvent, seq: number): ConversationState {
  // After Stop only the reply's end counts: it carries the text the gateway kept (what was shown,
  // or the whole reply when it had finished before the Stop arrived).
  if ('replyId' in event && event.type !== 'reply.end' && isStopped(state, event.replyId))
    return { ...state, activity: undefined };
  switch (event.type) {
    case 'typing':
      return { ...state, activity: TYPING_ACTIVITY };
    case 'status':
      return { ...state, activity: event.text };
    case 'reply.start':
      // A reply id seen before: the server answered this message again after a restart (reply ids
      // follow the message). The new run replaces the old text instead of adding to it.
      return withReply(state, event.replyId, (message) =>
        message.text === '' && message.state !== 'done'
          ? message
          : { ...message, text: '', media: undefined, state: 'streaming' },
      );
    case 'reply.delta':
      return withReply({ ...state, activity: undefined }, event.replyId, (message) => ({
        ...message,
        text: message.text + event.text,
      }));
    case 'reply.end':
      return withReply(withoutRestartNotices({ ...state, activity: undefined }), event.replyId, (message) => {
        const { stopped: _wasStopped, ...rest } = message;
        return { ...rest, text: event.text, state: 'done', ...(event.stopped ? { stopped: true } : {}) };
      });
    case 'reply.media':
      return withReply({ ...state, activity: undefined }, event.replyId, (message) => ({
        ...message,
        ...(message.text === '' && event.caption ? { text: event.caption } : {}),
        media: [...(message.media ?? []), event.media],
      }));
    case 'error': {
      const entry: ChatMessage = {
        id: `error-${seq}`,
        role: 'error',
        text: event.message,
        state: 'done',
        ...(event.code === 'shutting_down' ? { restarting: true } : {}),
      };
      const messages = state.messages.map((message) =>
        message.role === 'assistant' && message.state === 'streaming'
          ? { ...message, state: 'done' as const }
          : message,
      );
      return { ...state, activity: undefined, messages: [...messages, entry] };
    }
  }
}

/**
 * The server could not replay everything after our lastSeq (it restarted, or its log moved on).
 * That only matters when a reply was on its way: a reply left streaming will not be finished.
 */
function incompleteResume(state: ConversationState): ConversationState {
  const last = state.messages.at(-1);
  const awaitingReply = last?.state === 'sent' || last?.state === 'streaming';
  if (!awaitingReply) return state;
  const messages = state.messages.map((message) =>
    message.state === 'streaming' ? { ...message, state: 'done' as const } : message,
  );
  return { ...state, messages, alert: 'A reply sent while you were away could not be restored.' };
}

function isStopped(state: ConversationState, replyId: string): boolean {
  const index = findLastIndex(state.messages, replyId, 'assistant');
  return index !== -1 && state.messages[index]!.stopped === true;
}

/** The gateway is back and answering: the restart notices have done their job. */
function withoutRestartNotices(state: ConversationState): ConversationState {
  if (!state.messages.some((message) => message.restarting)) return state;
  return { ...state, messages: state.messages.filter((message) => !message.restarting) };
}

function withReply(
  state: ConversationState,
  replyId: string,
  change: (message: ChatMessage) => ChatMessage,
): ConversationState {
  const index = findLastIndex(state.messages, replyId, 'assistant');
  if (index === -1) {
    const created: ChatMessage = { id: replyId, role: 'assistant', text: '', state: 'streaming' };
    return { ...state, messages: [...state.messages, change(created)] };
  }
  return replaceAt(state, index, change);
}

function updateMessage(
  state: ConversationState,
  id: string,
  role: ChatMessageRole,
  change: (message: ChatMessage) => ChatMessage,
): ConversationState {
  const index = findLastIndex(state.messages, id, role);
  return index === -1 ? state : replaceAt(state, index, change);
}

function replaceAt(
  state: ConversationState,
  index: number,
  change: (message: ChatMessage) => ChatMessage,
): ConversationState {
  const messages = state.messages.slice();
  messages[index] = change(messages[index]!);
  return { ...state, messages };
}

function findLastIndex(messages: readonly ChatMessage[], id: string, role: ChatMessageRole): number {
  for (let index = messages.length - 1; index >= 0; index--) {
    const message = messages[index]!;
    if (message.id === id && message.role === role) return index;
  }
  return -1;
}
