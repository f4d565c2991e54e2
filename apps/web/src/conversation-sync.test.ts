import { describe, expect, it } from 'vitest';
import { AdminApiError } from './admin-api.ts';
import type { ConversationSummary } from './conversation-index.ts';
import type { ChatMessage, ConversationState } from './conversation-state.ts';
import { ConversationSync, importOf, withServerHistory } from './conversation-sync.ts';
import { visibleMessages } from './reply-versions.ts';
import {
  type ImportedConversation,
  type ServerConversations,
  type ServerExchange,
  toChatMessages,
} from './server-conversations.ts';
import { ChatStorage, memoryKeyValueStore } from './storage.ts';

const user = (id: string, text: string, state: ChatMessage['state'] = 'sent'): ChatMessage => ({
  id,
  role: 'user',
  text,
  state,
});
/** One exchange as the gateway lists it; `createdAt` follows `seq`. */
const exchange = (
  seq: number,
  clientMessageId: string,
  text: string,
  replyText: string,
  extra: Partial<ServerExchange> = {},
): ServerExchange => ({ seq, clientMessageId, text, replyText, outcome: 'ok', createdAt: seq, ...extra });
const reply = (id: string, text: string, extra: Partial<ChatMessage> = {}): ChatMessage => ({
  id,
  role: 'assistant',
  text,
  state: 'done',
  ...extra,
});

describe('carrying a stored conversation to the gateway', () => {
  it('takes each answered message with the reply shown, leaving out deleted, unsent and outdated ones', () => {
    const imported = importOf(
      { conversationId: 'c1', title: 'Trip', renamed: true, createdAt: 100, updatedAt: 900 },
      {
        conversationId: 'c1',
        lastSeq: 4,
        messages: [
          user('m1', 'Where to?'),
          reply('r1-old', 'Porto', { superseded: true }),
          reply('r1', 'Lisbon'),
          user('m2', 'Withdrawn', 'sent'),
          reply('r2', 'Answer to a withdrawn one'),
          user('m3', 'Never sent', 'pending'),
          user('m4', 'Failed', 'failed'),
          { id: 'error-1', role: 'error', text: 'The model failed', state: 'done' } satisfies ChatMessage,
        ].map((message): ChatMessage => (message.id === 'm2' ? { ...message, deleted: true } : message)),
      },
    );
    expect(imported).toEqual({
      conversationId: 'c1',
      title: 'Trip',
      renamed: true,
      createdAt: 100,
      updatedAt: 900,
      exchanges: [{ clientMessageId: 'm1', text: 'Where to?', replyText: 'Lisbon', createdAt: 100 }],
    });
  });
});

describe("taking the gateway's copy of the conversation shown", () => {
  const shown = (messages: ChatMessage[]): ConversationState => ({
    conversationId: 'c1',
    lastSeq: 7,
    messages,
  });

  it("adds a message sent elsewhere, keeps this copy's own details, and what this tab has not sent yet at the end", () => {
    const server = toChatMessages([
      exchange(1, 'm1', 'Hi', 'Hello', { replyId: 'r1' }),
      exchange(2, 'm2', 'From the phone', 'Noted', { outcome: 'aborted' }),
    ]);
    const photo = { kind: 'image' as const, name: 'cat.png', sizeBytes: 10 };
    const merged = withServerHistory(
      shown([
        { ...user('m1', 'Hi'), attachments: [photo] },
        reply('r1', 'Hello'),
        user('m9', 'typed offline', 'pending'),
      ]),
      server,
    );
    // What this copy holds (the file sent with m1) stays.
    expect(merged?.messages[0]?.attachments).toEqual([photo]);
    expect(merged?.lastSeq).toBe(7);
    expect(merged?.messages.map((message) => [message.id, message.text, message.stopped === true])).toEqual([
      ['m1', 'Hi', false],
      ['r1', 'Hello', false],
      ['m2', 'From the phone', false],
      ['m2:reply', 'Noted', true],
      ['m9', 'typed offline', false],
    ]);
  });

  it('changes nothing when the gateway says the same, or while a reply is streaming here', () => {
    const server = toChatMessages([exchange(1, 'm1', 'Hi', 'Hello', { replyId: 'r1' })]);
    // The richer local copy (versions, media) stays when the words are the same.
    expect(
      withServerHistory(
        shown([user('m1', 'Hi'), reply('r0', 'Hey', { superseded: true }), reply('r1', 'Hello')]),
        server,
      ),
    ).toBeUndefined();
    expect(
      withServerHistory(shown([user('m1', 'Hi'), { ...reply('r1', 'Hel'), state: 'streaming' }]), []),
    ).toBeUndefined();
  });

  it('takes in an edit made elsewhere and its new answer, keeping the old answer as a version', () => {
    const server = toChatMessages([exchange(1, 'm1', 'Hi there', 'Hello there', { replyId: 'r2' })]);
    const photo = { kind: 'image' as const, name: 'cat.png', sizeBytes: 10 };
    const merged = withServerHistory(
      shown([{ ...user('m1', 'Hi'), attachments: [photo] }, reply('r1', 'Hello')]),
      server,
    );
    expect(merged?.messages).toEqual([
      { ...user('m1', 'Hi there'), attachments: [photo], edited: true },
      reply('r1', 'Hello', { question: 'Hi' }),
      reply('r2', 'Hello there'),
    ]);
    const rows = visibleMessages(merged!.messages);
    expect(rows.map((row) => row.message.id)).toEqual(['m1', 'r2']);
    expect(rows[1]?.versions).toEqual({ questionId: 'm1', index: 1, replyIds: ['r1', 'r2'] });
  });

  it('does not take the answer to the new words, streamed here before the edit was read, for an old one', () => {
    const server = toChatMessages([exchange(1, 'm1', 'Hi there', 'Hello there', { replyId: 'r2' })]);
    const merged = withServerHistory(
      shown([user('m1', 'Hi'), reply('r1', 'Hello'), reply('r2', 'Hello there')]),
      server,
    );
    expect(merged?.messages).toEqual([
      { ...user('m1', 'Hi there'), edited: true },
      reply('r1', 'Hello', { question: 'Hi' }),
      reply('r2', 'Hello there'),
    ]);
  });

  it('shows the answer chosen or regenerated elsewhere, and nothing changes once both agree', () => {
    const local = shown([user('m1', 'Hi'), reply('r1', 'Hello'), reply('r2', 'Hey')]);
    const chosenElsewhere = toChatMessages([exchange(1, 'm1', 'Hi', 'Hello', { replyId: 'r1' })]);
    const merged = withServerHistory(local, chosenElsewhere);
    expect(merged?.messages[0]).toEqual({ ...user('m1', 'Hi'), chosenReplyId: 'r1' });
    expect(visibleMessages(merged!.messages).map((row) => row.message.id)).toEqual(['m1', 'r1']);
    expect(withServerHistory(merged!, chosenElsewhere)).toBeUndefined();
    const regenerated = toChatMessages([exchange(1, 'm1', 'Hi', 'Howdy', { replyId: 'r3' })]);
    const again = withServerHistory(merged!, regenerated);
    expect(again?.messages[0]).toEqual(user('m1', 'Hi'));
    expect(visibleMessages(again!.messages).map((row) => row.message.id)).toEqual(['m1', 'r3']);
  });

  it('shows a failed turn as an error, not as an empty answer', () => {
    expect(
      toChatMessages([
        { seq: 1, clientMessageId: 'm1', text: 'Hi', replyText: '', outcome: 'error', createdAt: 1 },
      ]),
    ).toEqual([
      user('m1', 'Hi'),
      { id: 'm1:error', role: 'error', text: 'This message was not answered.', state: 'done' },
    ]);
  });
});

describe('a browser signed in as another person since', () => {
  function storageFor(clientId: string, importedFor: string | undefined) {
    const store = memoryKeyValueStore();
    const storage = new ChatStorage({ store, randomId: () => 'unused' });
    storage.writeClientId('first-person');
    storage.writeConversation({
      conversationId: 'theirs',
      lastSeq: 1,
      messages: [user('t1', 'A private question'), reply('t1-reply', 'A private answer')],
    });
    if (importedFor !== undefined) storage.markImported(importedFor);
    storage.writeClientId(clientId);
    return storage;
  }

  /** The gateway's side as the sync sees it: what it was asked to import, and the list it holds. */
  function gatewayHolding(listed: ConversationSummary[]) {
    const imported: ImportedConversation[] = [];
    const server: ServerConversations = {
      list: async () => listed,
      read: async () => undefined,
      rename: async () => {},
      import: async (conversations) => {
        imported.push(...conversations);
        return conversations.map(({ conversationId }) => ({ conversationId, outcome: 'imported' as const }));
      },
    };
    return { server, imported };
  }

  it("never carries the earlier person's conversations to the new one, and lists only the new one's", async () => {
    const storage = storageFor('second-person', 'first-person');
    const { server, imported } = gatewayHolding([
      { conversationId: 'mine', title: 'Mine', createdAt: 1, updatedAt: 2 },
    ]);
    let shown: ConversationState = { conversationId: 'theirs', lastSeq: 1, messages: [] };
    await new ConversationSync({
      storage,
      server,
      shown: () => shown,
      show: () => {},
      listChanged: () => {},
      shownDeleted: () => {
        shown = { conversationId: 'fresh', lastSeq: 0, messages: [] };
      },
    }).sync();
    expect(imported).toEqual([]);
    expect(storage.listConversations().map((entry) => entry.conversationId)).toEqual(['mine']);
    expect(shown.conversationId).toBe('fresh');
    expect(storage.importedFor()).toBe('second-person');
  });

  it('carries a browser’s conversations once, at its first sign-in after the upgrade', async () => {
    const storage = storageFor('owner', undefined);
    const { server, imported } = gatewayHolding([]);
    const sync = new ConversationSync({
      storage,
      server,
      shown: () => ({ conversationId: 'theirs', lastSeq: 1, messages: [] }),
      show: () => {},
      listChanged: () => {},
      shownDeleted: () => {},
    });
    await sync.sync();
    await sync.sync();
    expect(
      imported.map((conversation) => [conversation.conversationId, conversation.exchanges.length]),
    ).toEqual([['theirs', 1]]);
    expect(storage.importedFor()).toBe('owner');
  });
});

describe('reading a long history page by page', () => {
  /** A gateway holding `count` exchanges of one conversation, read in pages of `pageSize` as the route does. */
  function gatewayWith(count: number, pageSize: number) {
    const exchanges = Array.from({ length: count }, (_, index) =>
      exchange(index + 1, `m${index + 1}`, `Question ${index + 1}`, `Answer ${index + 1}`, {
        replyId: `r${index + 1}`,
      }),
    );
    const reads: (number | undefined)[] = [];
    const server: ServerConversations = {
      list: async () => [],
      read: async (_conversationId, before) => {
        reads.push(before);
        const older = exchanges.filter((entry) => entry.seq < (before ?? Number.MAX_SAFE_INTEGER));
        const page = older.slice(-pageSize);
        return {
          summary: { conversationId: 'c1', title: 'Long', createdAt: 1, updatedAt: 2 },
          messages: toChatMessages(page),
          ...(older.length > page.length ? { earlier: page[0]!.seq } : {}),
        };
      },
      rename: async () => {},
      import: async () => [],
    };
    return { server, exchanges, reads };
  }

  function syncShowing(server: ServerConversations, messages: ChatMessage[] = []) {
    const state = { shown: { conversationId: 'c1', lastSeq: 0, messages } as ConversationState };
    const sync = new ConversationSync({
      storage: new ChatStorage({ store: memoryKeyValueStore(), randomId: () => 'unused' }),
      server,
      shown: () => state.shown,
      show: (conversation) => {
        state.shown = conversation;
      },
      listChanged: () => {},
      shownDeleted: () => {},
    });
    return { sync, state };
  }

  const questions = (state: ConversationState) =>
    state.messages.filter((message) => message.role === 'user').map((message) => message.id);

  it('shows the newest page, then each older page above it, until the start', async () => {
    const { server, reads } = gatewayWith(7, 3);
    const { sync, state } = syncShowing(server);
    await sync.load('c1');
    expect(questions(state.shown)).toEqual(['m5', 'm6', 'm7']);
    expect(state.shown.earlier).toBe(5);
    expect(await sync.loadEarlier('c1')).toBe(true);
    expect(questions(state.shown)).toEqual(['m2', 'm3', 'm4', 'm5', 'm6', 'm7']);
    expect(state.shown.earlier).toBe(2);
    expect(await sync.loadEarlier('c1')).toBe(true);
    expect(questions(state.shown)).toEqual(['m1', 'm2', 'm3', 'm4', 'm5', 'm6', 'm7']);
    expect(state.shown.messages.filter((message) => message.role === 'assistant')).toHaveLength(7);
    expect(state.shown.earlier).toBe(null);
    // Nothing older: no further read.
    expect(await sync.loadEarlier('c1')).toBe(false);
    expect(reads).toEqual([undefined, 5, 2]);
  });

  it('keeps the older pages shown when a new turn makes it read the newest page again', async () => {
    const { server, exchanges } = gatewayWith(4, 3);
    const { sync, state } = syncShowing(server);
    await sync.load('c1');
    await sync.loadEarlier('c1');
    expect(state.shown.earlier).toBe(null);
    exchanges.push(exchange(5, 'm5', 'Question 5', 'Answer 5', { replyId: 'r5' }));
    await sync.load('c1');
    expect(questions(state.shown)).toEqual(['m1', 'm2', 'm3', 'm4', 'm5']);
    expect(state.shown.earlier).toBe(null);
  });

  it("puts older pages above this copy's own messages, which stay as they are", async () => {
    const { server } = gatewayWith(5, 2);
    const pending = user('local', 'Typed offline', 'pending');
    const { sync, state } = syncShowing(server, [user('m5', 'Question 5'), reply('r5', 'Answer 5'), pending]);
    await sync.load('c1');
    expect(state.shown.earlier).toBe(4);
    await sync.loadEarlier('c1');
    expect(questions(state.shown)).toEqual(['m2', 'm3', 'm4', 'm5', 'local']);
    expect(state.shown.messages.at(-1)).toBe(pending);
  });
});

describe('a rename the gateway does not have yet', () => {
  /** A gateway holding titles by conversation; `reachable` false is a browser offline. */
  function gatewayWithTitles(titles: Map<string, string>) {
    const state = { reachable: true, renames: [] as [string, string][] };
    const server: ServerConversations = {
      list: async () => {
        if (!state.reachable) throw new TypeError('Failed to fetch');
        return [...titles].map(([conversationId, title]) => ({
          conversationId,
          title,
          createdAt: 1,
          updatedAt: 2,
        }));
      },
      read: async () => undefined,
      rename: async (conversationId, title) => {
        if (!state.reachable) throw new TypeError('Failed to fetch');
        if (!titles.has(conversationId)) throw new AdminApiError(404, 'No such conversation.');
        state.renames.push([conversationId, title]);
        titles.set(conversationId, title);
      },
      import: async () => [],
    };
    return { server, state };
  }

  function storageHolding(conversationId: string) {
    const storage = new ChatStorage({ store: memoryKeyValueStore(), randomId: () => 'unused' });
    storage.markImported(storage.clientId());
    storage.writeConversation({ conversationId, lastSeq: 1, messages: [user('m1', 'Where to in May?')] });
    return storage;
  }

  const syncOf = (storage: ChatStorage, server: ServerConversations) =>
    new ConversationSync({
      storage,
      server,
      shown: () => ({ conversationId: 'other', lastSeq: 0, messages: [] }),
      show: () => {},
      listChanged: () => {},
      shownDeleted: () => {},
    });
  const titleOf = (storage: ChatStorage, conversationId: string) =>
    storage.listConversations().find((entry) => entry.conversationId === conversationId)?.title;

  it('made offline, survives the next list read and reaches the gateway at the next connect', async () => {
    const titles = new Map([['c1', 'Where to in May?']]);
    const { server, state } = gatewayWithTitles(titles);
    const storage = storageHolding('c1');
    const sync = syncOf(storage, server);
    state.reachable = false;
    storage.renameConversation('c1', 'May trip');
    await expect(sync.pushRenames()).rejects.toThrow('Failed to fetch');
    expect(storage.pendingRenames()).toEqual({ c1: 'May trip' });

    state.reachable = true;
    await sync.sync();
    expect(state.renames).toEqual([['c1', 'May trip']]);
    expect(titles.get('c1')).toBe('May trip');
    expect(titleOf(storage, 'c1')).toBe('May trip');
    expect(storage.pendingRenames()).toEqual({});
  });

  it('of a conversation not on the gateway yet, is kept over its first title and sent once it is created there', async () => {
    const titles = new Map<string, string>();
    const { server, state } = gatewayWithTitles(titles);
    const storage = storageHolding('c1');
    const sync = syncOf(storage, server);
    storage.renameConversation('c1', 'May trip');
    await sync.pushRenames();
    expect(storage.pendingRenames()).toEqual({ c1: 'May trip' });
    // Its first message reaches the gateway, which lists it under a title of its own.
    titles.set('c1', 'Where to in May?');
    sync.changed('created', {
      conversationId: 'c1',
      title: 'Where to in May?',
      renamed: false,
      createdAt: 1,
      updatedAt: 2,
    });
    expect(titleOf(storage, 'c1')).toBe('May trip');
    await expect.poll(() => state.renames).toEqual([['c1', 'May trip']]);
    await expect.poll(() => storage.pendingRenames()).toEqual({});
    await sync.sync();
    expect(titleOf(storage, 'c1')).toBe('May trip');
  });

  it('is dropped when the gateway refuses the title, or the conversation was deleted elsewhere', async () => {
    const titles = new Map([['c1', 'Where to in May?']]);
    const { server } = gatewayWithTitles(titles);
    const refusing: ServerConversations = {
      ...server,
      rename: async () => {
        throw new AdminApiError(400, 'A title is 1–120 characters.');
      },
    };
    const storage = storageHolding('c1');
    storage.renameConversation('c1', 'May trip');
    await syncOf(storage, refusing).sync();
    expect(storage.pendingRenames()).toEqual({});
    expect(titleOf(storage, 'c1')).toBe('Where to in May?');

    const gone = storageHolding('c2');
    gone.renameConversation('c2', 'Old plans');
    gone.replaceIndex([]);
    expect(gone.pendingRenames()).toEqual({});
  });
});
