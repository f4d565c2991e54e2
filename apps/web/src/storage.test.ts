import { describe, expect, it } from 'vitest';
import type { ChatMessage } from './conversation-state.ts';
import { ChatStorage, type KeyValueStore, memoryKeyValueStore } from './storage.ts';

let counter = 0;
const randomId = () => `id-${++counter}`;

describe('ChatStorage', () => {
  it('keeps the token, a stable client id and the conversation', () => {
    const store = memoryKeyValueStore();
    const storage = new ChatStorage({ store, randomId });
    storage.writeToken('t1');
    const clientId = storage.clientId();
    const messages: ChatMessage[] = [
      { id: 'm1', role: 'user', text: 'hi', state: 'sent' },
      { id: 'r1', role: 'assistant', text: '**hello**', state: 'done' },
      { id: 'm2', role: 'user', text: 'again', state: 'failed', failure: 'Slow down.', retryable: true },
    ];
    storage.writeConversation({ conversationId: 'c-1', lastSeq: 4, messages });

    const reloaded = new ChatStorage({ store, randomId });
    expect(reloaded.readToken()).toBe('t1');
    expect(reloaded.clientId()).toBe(clientId);
    expect(reloaded.readConversation()).toEqual({ conversationId: 'c-1', lastSeq: 4, messages });
    reloaded.clearToken();
    expect(reloaded.readToken()).toBeUndefined();
  });

  it('treats corrupt or hand-edited data as absent and drops malformed messages', () => {
    const store = memoryKeyValueStore();
    const storage = new ChatStorage({ store, randomId });
    store.setItem('nexus.conversation', '{not json');
    expect(storage.readConversation()).toBeUndefined();
    store.setItem(
      'nexus.conversation',
      JSON.stringify({ conversationId: 'bad id!', lastSeq: 1, messages: [] }),
    );
    expect(storage.readConversation()).toBeUndefined();
    store.setItem('nexus.conversation', JSON.stringify({ conversationId: 'c1', lastSeq: -1, messages: [] }));
    expect(storage.readConversation()).toBeUndefined();
    store.setItem(
      'nexus.conversation',
      JSON.stringify({
        conversationId: 'c1',
        lastSeq: 2,
        messages: [
          { id: 'm1', role: 'user', text: 'kept', state: 'sent' },
          { id: 'm2', role: 'system', text: 'unknown role', state: 'sent' },
          { id: 3, role: 'user', text: 'id not a string', state: 'sent' },
          null,
        ],
      }),
    );
    expect(storage.readConversation()?.messages).toEqual([
      { id: 'm1', role: 'user', text: 'kept', state: 'sent' },
    ]);
  });

  it('keeps only the newest messages, and fewer still when the quota is exceeded', () => {
    const entries = new Map<string, string>();
    const quotaBytes = 2_000;
    const store: KeyValueStore = {
      getItem: (key) => entries.get(key) ?? null,
      setItem: (key, value) => {
        if (value.length > quotaBytes) throw new DOMException('quota', 'QuotaExceededError');
        entries.set(key, value);
      },
      removeItem: (key) => void entries.delete(key),
    };
    const storage = new ChatStorage({ store, randomId, maxMessages: 50 });
    const messages: ChatMessage[] = Array.from({ length: 80 }, (_, index) => ({
      id: `m${index}`,
      role: 'user',
      text: `message number ${index}`,
      state: 'sent',
    }));
    expect(storage.writeConversation({ conversationId: 'c1', lastSeq: 0, messages })).toBe(true);
    const stored = storage.readConversation()!.messages;
    expect(stored.length).toBeLessThan(50);
    expect(stored.at(-1)?.id).toBe('m79');
  });

  it('keeps working when storage itself throws', () => {
    const failing: KeyValueStore = {
      getItem: () => {
        throw new DOMException('denied', 'SecurityError');
      },
      setItem: () => {
        throw new DOMException('denied', 'SecurityError');
      },
      removeItem: () => {
        throw new DOMException('denied', 'SecurityError');
      },
    };
    const storage = new ChatStorage({ store: failing, randomId });
    expect(storage.readToken()).toBeUndefined();
    expect(storage.clientId()).toMatch(/^id-/);
    expect(storage.writeConversation({ conversationId: 'c1', lastSeq: 0, messages: [] })).toBe(false);
    expect(() => storage.clearToken()).not.toThrow();
  });
});
