import { describe, expect, it } from 'vitest';
import type { ChatMessage } from './conversation-state.ts';
import { ChatStorage, memoryKeyValueStore } from './storage.ts';

let counter = 0;
const randomId = () => `id-${++counter}`;
const said = (id: string, text: string): ChatMessage => ({ id, role: 'user', text, state: 'sent' });

function storageAt(store = memoryKeyValueStore()) {
  let now = 1_000;
  const storage = new ChatStorage({ store, randomId, now: () => now, maxConversations: 3 });
  return { store, storage, tick: () => (now += 1_000) };
}

describe('ChatStorage conversations', () => {
  it('lists conversations newest first, titled by their first message, and reopens the current one', () => {
    const { store, storage, tick } = storageAt();
    storage.writeConversation({
      conversationId: 'a',
      lastSeq: 0,
      messages: [said('m1', 'Plan   a trip\nto Porto')],
    });
    tick();
    storage.writeConversation({ conversationId: 'b', lastSeq: 0, messages: [said('m2', 'x'.repeat(200))] });
    tick();
    // Written again without anything new: not moved up.
    storage.writeConversation({
      conversationId: 'a',
      lastSeq: 0,
      messages: [said('m1', 'Plan   a trip\nto Porto')],
    });

    const list = storage.listConversations();
    expect(list.map((entry) => entry.conversationId)).toEqual(['b', 'a']);
    expect(list[1]).toMatchObject({ title: 'Plan a trip to Porto', createdAt: 1_000, updatedAt: 1_000 });
    expect(list[0]?.title).toHaveLength(80);
    expect(list[0]?.title.endsWith('…')).toBe(true);
    expect(new ChatStorage({ store, randomId }).readConversation()?.conversationId).toBe('a');
  });

  it('does not list an empty conversation', () => {
    const { storage } = storageAt();
    storage.writeConversation({ conversationId: 'empty', lastSeq: 0, messages: [] });
    expect(storage.listConversations()).toEqual([]);
    expect(storage.readConversation()?.conversationId).toBe('empty');
  });

  it('keeps a rename over later messages, and refuses blank names and unknown ids', () => {
    const { storage } = storageAt();
    storage.writeConversation({ conversationId: 'a', lastSeq: 0, messages: [said('m1', 'hello')] });
    expect(storage.renameConversation('a', '  Trip  plans ')).toBe(true);
    expect(storage.renameConversation('a', '   ')).toBe(false);
    expect(storage.renameConversation('missing', 'x')).toBe(false);
    storage.writeConversation({
      conversationId: 'a',
      lastSeq: 2,
      messages: [said('m1', 'hello'), said('m2', 'more')],
    });
    expect(storage.listConversations()[0]).toMatchObject({ title: 'Trip plans', renamed: true });
  });

  it('searches titles and message text, ignoring case and accents', () => {
    const { storage, tick } = storageAt();
    storage.writeConversation({ conversationId: 'a', lastSeq: 0, messages: [said('m1', 'Café in Lisbon')] });
    tick();
    storage.writeConversation({
      conversationId: 'b',
      lastSeq: 0,
      messages: [
        said('m2', 'Recipes'),
        { id: 'r', role: 'assistant', text: 'Try a Pastel de nata', state: 'done' },
      ],
    });
    expect(storage.searchConversations('cafe').map((entry) => entry.conversationId)).toEqual(['a']);
    expect(storage.searchConversations('NATA').map((entry) => entry.conversationId)).toEqual(['b']);
    expect(storage.searchConversations('lisbon nata')).toEqual([]);
    expect(storage.searchConversations(' ')).toHaveLength(2);
  });

  it('removes a conversation and its messages, and forgets the least recently used beyond the cap', () => {
    const { store, storage, tick } = storageAt();
    for (const id of ['a', 'b', 'c', 'd']) {
      storage.writeConversation({ conversationId: id, lastSeq: 0, messages: [said(`m-${id}`, id)] });
      tick();
    }
    expect(storage.listConversations().map((entry) => entry.conversationId)).toEqual(['d', 'c', 'b']);
    expect(store.getItem('nexus.conversation.a')).toBeNull();
    storage.removeConversation('c');
    expect(storage.listConversations().map((entry) => entry.conversationId)).toEqual(['d', 'b']);
    expect(storage.readConversation('c')).toBeUndefined();
  });

  it('moves the single conversation of an older version into the list', () => {
    const { store, storage } = storageAt();
    store.setItem(
      'nexus.conversation',
      JSON.stringify({ conversationId: 'old', lastSeq: 3, messages: [said('m1', 'from before')] }),
    );
    expect(storage.readConversation()?.conversationId).toBe('old');
    expect(store.getItem('nexus.conversation')).toBeNull();
    expect(storage.listConversations()).toMatchObject([{ conversationId: 'old', title: 'from before' }]);
  });

  it('ignores a hand-edited index entry that is not valid', () => {
    const { store, storage } = storageAt();
    store.setItem(
      'nexus.conversations',
      JSON.stringify([
        { conversationId: 'ok', title: 't', createdAt: 1, updatedAt: 2 },
        { conversationId: 'bad id', title: 't', createdAt: 1, updatedAt: 2 },
        { conversationId: 'x', title: 7, createdAt: 1, updatedAt: 2 },
        null,
      ]),
    );
    expect(storage.listConversations().map((entry) => entry.conversationId)).toEqual(['ok']);
  });
});
