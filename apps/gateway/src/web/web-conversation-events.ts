import type { ConversationEntry, SessionStore } from '@nexus/core';
import type { Intent, Logger, ServerFrame, WebConversationSummary } from '@nexus/protocol';

/** Longest title taken from a first message; the web client shows the same. */
export const MAX_CONVERSATION_TITLE_CHARS = 80;

export interface WebConversationEventsOptions {
  /** The web channel's name: only its conversations are listed. */
  channel: string;
  /** Sends a frame to every socket of one person (the web channel's `sendToClient`). */
  notify: (clientId: string, frame: ServerFrame) => void;
  logger: Logger;
}

/** A conversation as the web protocol names it (`GET /api/web/conversations`, `conversation` frames). */
export function toWebConversationSummary(entry: ConversationEntry): WebConversationSummary {
  return {
    conversationId: entry.conversationId,
    title: entry.title,
    renamed: entry.renamed,
    createdAt: entry.createdAt,
    updatedAt: entry.updatedAt,
  };
}

/** The first words of a message (or its first file's name), as a one-line title. */
export function titleOf(
  text: string,
  attachments: readonly { kind: string; name?: string | undefined }[] = [],
): string {
  const line = text.replace(/\s+/g, ' ').trim();
  if (line === '') {
    const first = attachments[0];
    if (first === undefined) return 'New conversation';
    return first.kind === 'voice' ? 'Voice note' : (first.name ?? 'Attachment');
  }
  return line.length <= MAX_CONVERSATION_TITLE_CHARS
    ? line
    : `${line.slice(0, MAX_CONVERSATION_TITLE_CHARS - 1).trimEnd()}…`;
}

/** The web conversation id of a conversation key (`web:<id>`, or `web:<id>#<n>` after `/new`). */
function conversationIdOf(channel: string, conversationKey: string): string | undefined {
  if (!conversationKey.startsWith(`${channel}:`)) return undefined;
  const rest = conversationKey.slice(channel.length + 1);
  const hash = rest.indexOf('#');
  return hash === -1 ? rest : rest.slice(0, hash);
}

/**
 * The session store core runs with, keeping the web conversation list in step: a message taken in
 * a conversation lists it for its person, a stored turn or an edit marks it active, and each
 * change is told to every open socket of that person (their other tabs and devices). The list is
 * a view: a failure to update it is logged and never fails the message.
 */
export function withWebConversationEvents(
  store: SessionStore,
  options: WebConversationEventsOptions,
): SessionStore {
  const list = store.conversations;
  if (list === undefined) return store;
  const { channel, notify, logger } = options;
  const tell = (change: 'created' | 'turn', entry: ConversationEntry | undefined) => {
    if (entry === undefined) return;
    notify(entry.owner, { type: 'conversation', change, conversation: toWebConversationSummary(entry) });
  };
  const failed = (error: unknown) => logger.warn({ err: error }, 'web conversation list not updated');
  const touched = (conversationKey: string | undefined, at: number) => {
    const conversationId = conversationKey && conversationIdOf(channel, conversationKey);
    if (!conversationId) return;
    list.touch({ channel, conversationId, at }).then((entry) => tell('turn', entry), failed);
  };
  const claim = (intent: Intent) => {
    const at = Date.parse(intent.receivedAt);
    list
      .claim({
        channel,
        conversationId: intent.conversation.id,
        owner: intent.sender.platformId,
        title: titleOf(intent.text, intent.attachments),
        at: Number.isFinite(at) ? at : Date.now(),
      })
      .then((entry) => {
        // A message in a listed conversation is told once its turn is stored.
        if (entry !== undefined && entry.createdAt === entry.updatedAt) tell('created', entry);
      }, failed);
  };

  return {
    ...store,
    async admitIntent(entry) {
      const admitted = await store.admitIntent(entry);
      if (admitted === 'admitted' && entry.intent.channel === channel && entry.intent.revises === undefined)
        claim(entry.intent);
      return admitted;
    },
    async appendTurn(turn) {
      await store.appendTurn(turn);
      if (turn.channel === channel) touched(turn.conversationKey, turn.createdAt);
    },
    async applyRevision(revision) {
      if (revision.channel !== channel) return store.applyRevision(revision);
      // A delete names no conversation: find it before the message leaves history.
      const change = revision.change;
      let conversationKey = 'turn' in change ? change.turn.conversationKey : undefined;
      if (change.type === 'note') conversationKey = change.note.conversationKey;
      if (conversationKey === undefined) {
        const found = await store.lookUpMessage({ channel, intentId: revision.targetIntentId });
        conversationKey = found.state === 'answered' ? found.turn.conversationKey : undefined;
      }
      await store.applyRevision(revision);
      touched(conversationKey, revision.createdAt);
    },
  };
}
