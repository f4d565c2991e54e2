import type { WebConversationSummary } from '@nexus/protocol';
import { AdminApiError } from './admin-api.ts';
import type { ConversationSummary } from './conversation-index.ts';
import type { ChatMessage, ConversationState } from './conversation-state.ts';
import { visibleMessages } from './reply-versions.ts';
import type { ImportedConversation, ServerConversations } from './server-conversations.ts';
import { toSummary } from './server-conversations.ts';
import { type MessageGroup, withServerEdits } from './server-edits.ts';
import type { ChatStorage, StoredConversation } from './storage.ts';

/** Conversations per import request (the gateway takes at most 20). */
const IMPORT_BATCH = 20;
/** The gateway's caps on imported text; longer text is cut rather than the whole import refused. */
const MAX_IMPORTED_TEXT = 32_000;
const MAX_IMPORTED_REPLY = 200_000;
/** Reads of the shown conversation overtaken by a change in this tab before one is applied. */
const MAX_OVERTAKEN_READS = 3;
/** A conversation this browser used this recently is kept even if the gateway's list lacks it yet. */
const RECENT_LOCAL_MS = 60_000;

/**
 * The person's messages as drawn (sent, not withdrawn), each with the answer shown for it: the
 * version chosen, or the newest. Hidden versions stay with this browser.
 */
function shownExchanges(messages: readonly ChatMessage[]): { question: ChatMessage; reply?: ChatMessage }[] {
  const exchanges: { question: ChatMessage; reply?: ChatMessage }[] = [];
  let open: { question: ChatMessage; reply?: ChatMessage } | undefined;
  for (const { message } of visibleMessages(messages)) {
    if (message.role === 'user') {
      open = message.state === 'sent' && !message.deleted ? { question: message } : undefined;
      if (open !== undefined) exchanges.push(open);
    } else if (
      message.role === 'assistant' &&
      message.state === 'done' &&
      !message.unprompted &&
      open?.reply === undefined &&
      open
    )
      open.reply = message;
  }
  return exchanges;
}

/** The exchanges of a stored conversation that were answered: a sent message and the reply shown. */
export function importOf(
  summary: ConversationSummary,
  stored: StoredConversation | undefined,
): ImportedConversation {
  const exchanges: ImportedConversation['exchanges'] = [];
  for (const { question, reply } of shownExchanges(stored?.messages ?? [])) {
    if (reply === undefined) continue;
    exchanges.push({
      clientMessageId: question.id,
      text: question.text.slice(0, MAX_IMPORTED_TEXT),
      replyText: reply.text.slice(0, MAX_IMPORTED_REPLY),
      // Stored messages carry no times: keep their order inside the conversation's lifetime.
      createdAt: summary.createdAt + exchanges.length,
    });
  }
  return {
    conversationId: summary.conversationId,
    title: summary.title.trim() || 'Untitled',
    renamed: summary.renamed === true,
    createdAt: summary.createdAt,
    updatedAt: Math.max(summary.createdAt, summary.updatedAt),
    exchanges: exchanges.slice(-300),
  };
}

function groupsOf(messages: readonly ChatMessage[]): MessageGroup[] {
  const groups: MessageGroup[] = [];
  for (const message of messages) {
    if (message.role === 'user' || groups.length === 0)
      groups.push({ question: message.role === 'user' ? message : undefined, messages: [] });
    groups.at(-1)!.messages.push(message);
  }
  return groups;
}

const unsent = (group: MessageGroup) =>
  group.question !== undefined && (group.question.state === 'pending' || group.question.state === 'failed');

/**
 * The conversation shown, with the exchanges the gateway holds and this copy lacks (messages sent
 * in another tab or device) added in the gateway's order, and the edits and answers chosen there
 * taken into the ones both hold (server-edits.ts). What this copy has stays as it is (its files,
 * reply versions, errors); messages not yet sent from here stay at the end. Undefined when the
 * gateway has nothing new, or a reply is streaming here (the next change brings it).
 */
export function withServerHistory(
  local: ConversationState,
  server: readonly ChatMessage[],
): ConversationState | undefined {
  if (local.messages.some((message) => message.state === 'streaming')) return undefined;
  const serverGroups = groupsOf(server).filter((group) => group.question !== undefined);
  const { groups: localGroups, moved } = withoutMisplacedReplies(groupsOf(local.messages), serverGroups);
  const localById = new Map(
    localGroups.flatMap((group) => (group.question ? [[group.question.id, group]] : [])),
  );
  const edited = new Map<string, MessageGroup>();
  for (const group of serverGroups) {
    const held = localById.get(group.question!.id);
    const changed = held && withServerEdits(held, group);
    if (changed) edited.set(group.question!.id, changed);
  }
  if (!moved && edited.size === 0 && serverGroups.every((group) => localById.has(group.question!.id)))
    return undefined;
  // Groups only this copy has (withdrawn, not stored yet) keep their place after the group before them.
  const onServer = new Set(serverGroups.map((group) => group.question!.id));
  const after = new Map<string | undefined, MessageGroup[]>();
  let anchor: string | undefined;
  for (const group of localGroups) {
    const id = group.question?.id;
    if (id !== undefined && onServer.has(id)) anchor = id;
    else if (!unsent(group)) after.set(anchor, [...(after.get(anchor) ?? []), group]);
  }
  const merged: ChatMessage[] = (after.get(undefined) ?? []).flatMap((group) => group.messages);
  for (const group of serverGroups) {
    const id = group.question!.id;
    merged.push(...(edited.get(id) ?? localById.get(id) ?? group).messages);
    for (const kept of after.get(id) ?? []) merged.push(...kept.messages);
  }
  for (const group of localGroups.filter(unsent)) merged.push(...group.messages);
  return { ...local, messages: merged };
}

/**
 * A reply to a message sent in another tab streams here live and is drawn after the last message
 * this copy had, under someone else's question; the gateway says whose answer it is, and it
 * comes back with that message's group.
 */
function withoutMisplacedReplies(
  localGroups: MessageGroup[],
  serverGroups: readonly MessageGroup[],
): { groups: MessageGroup[]; moved: boolean } {
  const answered = new Map<string, string>();
  for (const group of serverGroups)
    for (const message of group.messages)
      if (message.role === 'assistant') answered.set(message.id, group.question!.id);
  let moved = false;
  const groups = localGroups.map((group) => {
    const kept = group.messages.filter(
      (message) =>
        message.role !== 'assistant' ||
        (answered.get(message.id) ?? group.question?.id) === group.question?.id,
    );
    if (kept.length === group.messages.length) return group;
    moved = true;
    return { ...group, messages: kept };
  });
  return { groups, moved };
}

/**
 * Where the older history starts after a read of the newest page: once everything older was
 * shown it stays shown (null); otherwise the oldest boundary seen, as earlier pages read may
 * reach further back than the newest page does.
 */
function olderBoundary(shown: number | null | undefined, newestPage: number | undefined): number | null {
  if (shown === null || newestPage === undefined) return null;
  return shown === undefined ? newestPage : Math.min(shown, newestPage);
}

export interface ConversationSyncOptions {
  storage: ChatStorage;
  server: ServerConversations;
  /** The conversation on screen now. */
  shown: () => ConversationState;
  /** Puts the gateway's copy of the shown conversation on screen (and in storage). */
  show: (conversation: ConversationState, summary: ConversationSummary) => void;
  /** The list in storage changed. */
  listChanged: () => void;
  /** The shown conversation was deleted elsewhere. */
  shownDeleted: () => void;
}

/**
 * Keeps this browser's conversations in step with the gateway, which keeps them per person: the
 * conversations this browser held before are carried there once, the gateway's list replaces the
 * stored one, and changes from the person's other tabs and devices (`conversation` frames) are
 * applied as they come. Storage stays the copy shown at first paint and offline; a failed call
 * leaves it as it is and is tried again at the next connect.
 */
export class ConversationSync {
  readonly #options: ConversationSyncOptions;
  #running: Promise<void> | undefined;
  #again = false;

  constructor(options: ConversationSyncOptions) {
    this.#options = options;
  }

  /** After each connect: import once, take the gateway's list, and its copy of the shown conversation. */
  sync(): Promise<void> {
    if (this.#running !== undefined) {
      this.#again = true;
      return this.#running;
    }
    this.#running = this.#syncOnce()
      .catch(() => {
        // Offline or refused: storage keeps what it has; the next connect tries again.
      })
      .finally(() => {
        this.#running = undefined;
        if (this.#again) {
          this.#again = false;
          void this.sync();
        }
      });
    return this.#running;
  }

  async #syncOnce(): Promise<void> {
    const { storage, server } = this.#options;
    const clientId = storage.clientId();
    const importedFor = storage.importedFor();
    // Only what the browser held before the list lived on the gateway is carried there; a browser
    // signed in as someone else since holds that person's copies, never to be given to this one.
    if (importedFor === undefined) await this.#importHeld();
    await this.pushRenames();
    const listed = await server.list();
    if (importedFor !== clientId) storage.markImported(clientId);
    const otherPerson = importedFor !== undefined && importedFor !== clientId;
    const now = Date.now();
    const keep = storage.listConversations().filter((summary) => {
      if (otherPerson) return false;
      if (listed.some((entry) => entry.conversationId === summary.conversationId)) return false;
      // Not on the gateway: deleted elsewhere, unless its message has not reached the gateway yet.
      const messages = storage.readConversation(summary.conversationId)?.messages ?? [];
      return (
        now - summary.updatedAt < RECENT_LOCAL_MS ||
        messages.some((message) => message.state === 'pending' || message.state === 'failed')
      );
    });
    storage.replaceIndex([...listed, ...keep]);
    this.#options.listChanged();
    const shown = this.#options.shown().conversationId;
    if (otherPerson && !listed.some((entry) => entry.conversationId === shown)) this.#options.shownDeleted();
    if (listed.some((entry) => entry.conversationId === shown)) await this.load(shown);
  }

  /**
   * Tells the gateway the titles given here it does not have yet. A conversation not on the
   * gateway yet (no message sent) keeps its rename for when it is; a title the gateway refuses is
   * dropped (the list then shows the gateway's); out of reach, the next connect tries again.
   */
  async pushRenames(): Promise<void> {
    const { storage, server } = this.#options;
    for (const [conversationId, title] of Object.entries(storage.pendingRenames())) {
      try {
        await server.rename(conversationId, title);
      } catch (error) {
        if (!(error instanceof AdminApiError) || error.status >= 500 || error.status === 401) throw error;
        if (error.status === 404) continue;
      }
      storage.clearPendingRename(conversationId, title);
    }
  }

  async #importHeld(): Promise<void> {
    const { storage, server } = this.#options;
    const held = storage
      .listConversations()
      .map((summary) => importOf(summary, storage.readConversation(summary.conversationId)));
    for (let start = 0; start < held.length; start += IMPORT_BATCH)
      await server.import(held.slice(start, start + IMPORT_BATCH));
  }

  /** Reads the gateway's copy of a conversation and shows it when it is still the one on screen. */
  async load(conversationId: string): Promise<boolean> {
    for (let attempt = 0; attempt < MAX_OVERTAKEN_READS; attempt += 1) {
      const asked = this.#options.shown();
      const read = await this.#options.server.read(conversationId);
      if (read === undefined) return false;
      const shown = this.#options.shown();
      if (shown.conversationId !== conversationId) return true;
      // Anything that happened here meanwhile (a reply streamed live, a regenerate, Stop) may be
      // newer than this read, and the frame of that change may have come before it: read again.
      if (shown !== asked) continue;
      const merged = withServerHistory(shown, read.messages) ?? shown;
      const earlier = olderBoundary(shown.earlier, read.earlier);
      if (merged !== shown || earlier !== shown.earlier)
        this.#options.show({ ...merged, earlier }, read.summary);
      return true;
    }
    return true;
  }

  /**
   * Reads the page of history before what the shown conversation holds and puts it above; the
   * messages already here stay as they are. False when there is nothing earlier to read.
   */
  async loadEarlier(conversationId: string): Promise<boolean> {
    const before = this.#options.shown().earlier;
    if (typeof before !== 'number') return false;
    const read = await this.#options.server.read(conversationId, before);
    const shown = this.#options.shown();
    if (read === undefined || shown.conversationId !== conversationId || shown.earlier !== before)
      return false;
    const held = new Set(shown.messages.map((message) => `${message.role}:${message.id}`));
    const older = read.messages.filter((message) => !held.has(`${message.role}:${message.id}`));
    this.#options.show(
      { ...shown, messages: [...older, ...shown.messages], earlier: read.earlier ?? null },
      read.summary,
    );
    return true;
  }

  /** A `conversation` frame: another tab or device of this person changed the list. */
  changed(change: 'created' | 'renamed' | 'turn' | 'deleted', conversation: WebConversationSummary): void {
    const { storage } = this.#options;
    const summary = toSummary(conversation);
    if (change === 'deleted') {
      storage.removeConversation(summary.conversationId);
      this.#options.listChanged();
      if (this.#options.shown().conversationId === summary.conversationId) this.#options.shownDeleted();
      return;
    }
    storage.upsertSummary(summary);
    this.#options.listChanged();
    // Created on the gateway by its first message: a title given here before can go there now.
    if (change === 'created' && summary.conversationId in storage.pendingRenames())
      this.pushRenames().catch(() => {
        // Out of reach: the next connect tries again.
      });
    if (change === 'turn' && this.#options.shown().conversationId === summary.conversationId)
      this.load(summary.conversationId).catch(() => {
        // Out of reach: the next connect reads it again.
      });
  }
}
