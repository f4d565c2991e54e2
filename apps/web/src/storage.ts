import {
  type ConversationSummary,
  isConversationId,
  MAX_TITLE_CHARS,
  matchesQuery,
  titleFromMessages,
  toConversationIndex,
} from './conversation-index.ts';
import { type StoredConversation, toStoredConversation, withoutLargeMedia } from './stored-conversation.ts';

export type { StoredConversation } from './stored-conversation.ts';

/** The part of the Web Storage API used here; `localStorage` in the browser. */
export interface KeyValueStore {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
}

export interface ChatStorageOptions {
  store: KeyValueStore;
  randomId: () => string;
  /** Older messages are dropped beyond this, keeping well inside the ~5 MB storage quota. Default 300. */
  maxMessages?: number;
  /** Conversations kept; the least recently used beyond this are forgotten. Default 100. */
  maxConversations?: number;
  now?: () => number;
}

const keys = {
  token: 'nexus.token',
  clientId: 'nexus.clientId',
  /** Before the conversations list: the one conversation. Read once and moved. */
  legacyConversation: 'nexus.conversation',
  current: 'nexus.currentConversation',
  /** The person whose gateway list this browser's conversations were carried to (once). */
  imported: 'nexus.conversationsImported',
  index: 'nexus.conversations',
  /** Titles the person gave that the gateway does not have yet, by conversation id. */
  pendingRenames: 'nexus.pendingRenames',
  conversation: (id: string) => `nexus.conversation.${id}`,
} as const;
/**
 * Everything the client keeps across reloads. Storage can be missing, full or hand-edited, so
 * every read validates and every write tolerates failure: losing history must never stop the chat.
 */
export class ChatStorage {
  readonly #store: KeyValueStore;
  readonly #randomId: () => string;
  readonly #maxMessages: number;
  readonly #maxConversations: number;
  readonly #now: () => number;

  constructor(options: ChatStorageOptions) {
    this.#store = options.store;
    this.#randomId = options.randomId;
    this.#maxMessages = options.maxMessages ?? 300;
    this.#maxConversations = options.maxConversations ?? 100;
    this.#now = options.now ?? Date.now;
  }

  readToken(): string | undefined {
    return this.#read(keys.token) || undefined;
  }

  writeToken(token: string): void {
    this.#write(keys.token, token);
  }

  clearToken(): void {
    this.#remove(keys.token);
  }

  /** Sign-in answered whose person this browser is: every later hello and API call names it. */
  writeClientId(clientId: string): void {
    this.#write(keys.clientId, clientId);
  }

  /** This browser's stable id, created on first use. */
  clientId(): string {
    const existing = this.#read(keys.clientId);
    if (existing && existing.length <= 128) return existing;
    const created = this.#randomId();
    this.#write(keys.clientId, created);
    return created;
  }

  /** The conversation shown last (or `conversationId`'s), as stored. */
  readConversation(conversationId?: string): StoredConversation | undefined {
    const id = conversationId ?? this.#read(keys.current);
    if (id === undefined) return this.#readLegacy();
    if (!isConversationId(id)) return undefined;
    const stored = parseJson(this.#read(keys.conversation(id)));
    const conversation = stored === undefined ? undefined : toStoredConversation(stored);
    return conversation?.conversationId === id ? conversation : undefined;
  }

  /** Remembers which conversation is shown, so a reload opens it again. */
  writeCurrentConversation(conversationId: string): void {
    this.#write(keys.current, conversationId);
  }

  /** Every stored conversation, most recently active first. */
  listConversations(): ConversationSummary[] {
    return toConversationIndex(parseJson(this.#read(keys.index)));
  }

  /** The conversations whose title or any message contains every word of `query`. */
  searchConversations(query: string): ConversationSummary[] {
    const all = this.listConversations();
    if (query.trim() === '') return all;
    return all.filter((summary) => {
      if (matchesQuery(summary, query)) return true;
      const messages = this.readConversation(summary.conversationId)?.messages ?? [];
      return messages.some((message) => matchesQuery({ ...summary, title: message.text }, query));
    });
  }

  /** Gives a conversation the person's own title; false when there is no such conversation. */
  renameConversation(conversationId: string, title: string): boolean {
    const index = this.listConversations();
    const entry = index.find((summary) => summary.conversationId === conversationId);
    const trimmed = title.replace(/\s+/g, ' ').trim().slice(0, MAX_TITLE_CHARS);
    if (entry === undefined || trimmed === '') return false;
    entry.title = trimmed;
    entry.renamed = true;
    this.#writePendingRenames({ ...this.pendingRenames(), [conversationId]: trimmed });
    return this.#write(keys.index, JSON.stringify(index));
  }

  /**
   * Renames made here that the gateway has not taken yet (offline, or the conversation is not on
   * the gateway until its first message): they win over the gateway's titles in the list until
   * it has them, so a list read meanwhile does not undo them.
   */
  pendingRenames(): Record<string, string> {
    const stored = parseJson(this.#read(keys.pendingRenames));
    const renames: Record<string, string> = Object.create(null);
    if (stored === null || typeof stored !== 'object' || Array.isArray(stored)) return renames;
    for (const [id, title] of Object.entries(stored))
      if (isConversationId(id) && typeof title === 'string' && title.trim() !== '')
        renames[id] = title.slice(0, MAX_TITLE_CHARS);
    return renames;
  }

  /** The gateway has `title` for the conversation (or will never take it): no longer pending. */
  clearPendingRename(conversationId: string, title: string): void {
    const renames = this.pendingRenames();
    if (renames[conversationId] !== title) return;
    delete renames[conversationId];
    this.#writePendingRenames(renames);
  }

  #writePendingRenames(renames: Record<string, string>): void {
    if (Object.keys(renames).length === 0) this.#remove(keys.pendingRenames);
    else this.#write(keys.pendingRenames, JSON.stringify(renames));
  }

  /** The entry with the title renamed here, while the gateway does not have it yet. */
  #withPendingTitle(summary: ConversationSummary, renames: Record<string, string>): ConversationSummary {
    const title = renames[summary.conversationId];
    return title === undefined ? summary : { ...summary, title, renamed: true };
  }

  /** The person this browser's conversations were carried to the gateway for, if they were. */
  importedFor(): string | undefined {
    return this.#read(keys.imported);
  }

  markImported(clientId: string): void {
    this.#write(keys.imported, clientId);
  }

  /**
   * The list becomes `summaries` (the gateway's, with what only this browser holds yet); a
   * conversation no longer listed loses its stored messages too, unless it is the one shown.
   */
  replaceIndex(summaries: readonly ConversationSummary[]): void {
    const before = this.listConversations();
    const renames = this.pendingRenames();
    const kept = toConversationIndex(
      summaries.map((summary) => ({
        ...this.#withPendingTitle(summary, renames),
        activity: before.find((entry) => entry.conversationId === summary.conversationId)?.activity,
      })),
    );
    // A rename of a conversation gone from the list (deleted elsewhere) has nothing left to name.
    const listed = new Set(kept.map((entry) => entry.conversationId));
    const stillPending = Object.entries(renames).filter(([id]) => listed.has(id));
    if (stillPending.length !== Object.keys(renames).length)
      this.#writePendingRenames(Object.fromEntries(stillPending));
    const current = this.#read(keys.current);
    for (const dropped of before)
      if (
        !kept.some((entry) => entry.conversationId === dropped.conversationId) &&
        dropped.conversationId !== current
      )
        this.#remove(keys.conversation(dropped.conversationId));
    this.#write(keys.index, JSON.stringify(kept.slice(0, this.#maxConversations)));
  }

  /** Adds or updates one list entry as the gateway describes it (its messages are read when opened). */
  upsertSummary(summary: ConversationSummary): void {
    const index = this.listConversations();
    const existing = index.find((entry) => entry.conversationId === summary.conversationId);
    const entry = {
      ...this.#withPendingTitle(summary, this.pendingRenames()),
      ...(existing?.activity === undefined ? {} : { activity: existing.activity }),
    };
    const others = index.filter((other) => other.conversationId !== summary.conversationId);
    this.#write(
      keys.index,
      JSON.stringify(toConversationIndex([entry, ...others]).slice(0, this.#maxConversations)),
    );
  }

  /** Forgets a conversation in this browser (its messages and its list entry). */
  removeConversation(conversationId: string): void {
    this.#remove(keys.conversation(conversationId));
    const renames = this.pendingRenames();
    if (conversationId in renames) {
      delete renames[conversationId];
      this.#writePendingRenames(renames);
    }
    const index = this.listConversations().filter((summary) => summary.conversationId !== conversationId);
    this.#write(keys.index, JSON.stringify(index));
  }

  /**
   * Stores the conversation and makes it the current one. A conversation without messages is not
   * listed. Returns false when nothing could be stored even after dropping older messages.
   */
  writeConversation(conversation: StoredConversation): boolean {
    this.writeCurrentConversation(conversation.conversationId);
    if (conversation.messages.length === 0)
      return this.#write(keys.conversation(conversation.conversationId), JSON.stringify(conversation));
    this.#index(conversation);
    let messages = conversation.messages.slice(-this.#maxMessages).map(withoutLargeMedia);
    for (;;) {
      const stored: StoredConversation = {
        conversationId: conversation.conversationId,
        lastSeq: conversation.lastSeq,
        messages,
      };
      if (this.#write(keys.conversation(conversation.conversationId), JSON.stringify(stored))) return true;
      if (messages.length === 0) return false;
      messages = messages.slice(Math.ceil(messages.length / 2));
    }
  }

  /** Adds or refreshes the conversation's list entry; the least recently used beyond the cap go. */
  #index(conversation: StoredConversation): void {
    const now = this.#now();
    const index = this.listConversations();
    const existing = index.find((summary) => summary.conversationId === conversation.conversationId);
    const title = existing?.renamed ? existing.title : titleFromMessages(conversation.messages);
    const activity = conversation.messages.length + conversation.lastSeq;
    const entry: ConversationSummary = {
      ...(existing ?? { createdAt: now }),
      conversationId: conversation.conversationId,
      title,
      updatedAt: existing?.activity === activity ? existing.updatedAt : now,
      activity,
    };
    const others = index.filter((summary) => summary.conversationId !== conversation.conversationId);
    const kept = [entry, ...others].sort((a, b) => b.updatedAt - a.updatedAt);
    for (const dropped of kept.splice(this.#maxConversations))
      this.#remove(keys.conversation(dropped.conversationId));
    this.#write(keys.index, JSON.stringify(kept));
  }

  #readLegacy(): StoredConversation | undefined {
    const stored = parseJson(this.#read(keys.legacyConversation));
    const conversation = stored === undefined ? undefined : toStoredConversation(stored);
    if (conversation !== undefined && this.writeConversation(conversation))
      this.#remove(keys.legacyConversation);
    return conversation;
  }

  #read(key: string): string | undefined {
    try {
      return this.#store.getItem(key) ?? undefined;
    } catch {
      return undefined;
    }
  }

  #write(key: string, value: string): boolean {
    try {
      this.#store.setItem(key, value);
      return true;
    } catch {
      return false;
    }
  }

  #remove(key: string): void {
    try {
      this.#store.removeItem(key);
    } catch {
      // Storage unavailable: nothing stored, nothing to remove.
    }
  }
}

/** A KeyValueStore in memory, for when `localStorage` is unavailable (e.g. blocked by the browser). */
export function memoryKeyValueStore(): KeyValueStore {
  const entries = new Map<string, string>();
  return {
    getItem: (key) => entries.get(key) ?? null,
    setItem: (key, value) => void entries.set(key, String(value)),
    removeItem: (key) => void entries.delete(key),
  };
}

function parseJson(raw: string | undefined): unknown {
  if (raw === undefined) return undefined;
  try {
    return JSON.parse(raw);
  } catch {
    return undefined;
  }
}
