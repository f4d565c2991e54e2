import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterEach, describe, expect, it } from 'vitest';
import { nextPassOfTheEventLoop } from '../testing/two-connections.ts';
import type { StoredTurn } from './session-store.ts';
import { createSqliteSessionStore } from './sqlite-session-store.ts';

const directories: string[] = [];
function temporaryFile(): string {
  const directory = mkdtempSync(join(tmpdir(), 'nexus-session-store-'));
  directories.push(directory);
  return join(directory, 'nested', 'sessions.db');
}
afterEach(() => {
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
});

function turn(index: number, overrides: Partial<StoredTurn> = {}): StoredTurn {
  return {
    conversationKey: 'web:c1',
    channel: 'web',
    userId: 'web:u1',
    intentId: `intent-${index}`,
    userText: `question ${index}`,
    replyText: `answer ${index}`,
    outcome: 'ok',
    createdAt: 1_000 + index,
    ...overrides,
  };
}

describe('sqlite session store', () => {
  it('commits concurrent writes together; a failing one undoes only itself; a read sees what is queued', async () => {
    const path = temporaryFile();
    const store = createSqliteSessionStore({ path });
    // A second connection counts commits: `data_version` moves once per commit made by another one.
    const observer = new DatabaseSync(path);
    const version = () =>
      (observer.prepare('PRAGMA data_version').get() as { data_version: number }).data_version;
    const before = version();
    const results = await Promise.allSettled([
      store.appendTurn(turn(1)),
      store.appendTurn(turn(2, { conversationKey: 'web:c2' })),
      store.appendTurn(turn(3, { outcome: 'bogus' as StoredTurn['outcome'] })),
      store.appendTurn(turn(4, { conversationKey: 'web:c3' })),
    ]);
    expect(results.map((result) => result.status)).toEqual([
      'fulfilled',
      'fulfilled',
      'rejected',
      'fulfilled',
    ]);
    expect(version() - before).toBe(1);
    const count = observer.prepare('SELECT count(*) AS turns FROM turns').get() as { turns: number };
    expect(count.turns).toBe(3);
    // Not awaited: the history read of that conversation commits it first.
    const pending = store.appendTurn(turn(5));
    expect(
      (await store.history({ conversationKey: 'web:c1', limit: 5 })).map((stored) => stored.intentId),
    ).toEqual(['intent-1', 'intent-5']);
    await pending;
    observer.close();
    await store.close();
  });

  it("a history read commits only when its own conversation has a write queued, not for others'", async () => {
    const path = temporaryFile();
    const store = createSqliteSessionStore({ path });
    const observer = new DatabaseSync(path);
    const version = () =>
      (observer.prepare('PRAGMA data_version').get() as { data_version: number }).data_version;
    // A failed write leaves the queue too: it must not make later reads of web:c1 commit.
    await expect(store.appendTurn(turn(1, { outcome: 'bogus' as StoredTurn['outcome'] }))).rejects.toThrow();
    await store.appendTurn(turn(2));
    const before = version();
    const other = store.appendTurn(turn(3, { conversationKey: 'web:c2' }));
    expect(
      (await store.history({ conversationKey: 'web:c1', limit: 5 })).map((stored) => stored.intentId),
    ).toEqual(['intent-2']);
    expect(version()).toBe(before);
    // Two writes of web:c1 queued: one read commits both.
    const first = store.appendTurn(turn(4));
    const second = store.appendTurn(turn(5));
    expect(
      (await store.history({ conversationKey: 'web:c1', limit: 5 })).map((stored) => stored.intentId),
    ).toEqual(['intent-2', 'intent-4', 'intent-5']);
    expect(version()).toBe(before + 1);
    await Promise.all([other, first, second]);
    observer.close();
    await store.close();
  });

  it('returns the last turns of a conversation oldest first, and only that conversation', async () => {
    const store = createSqliteSessionStore({ path: ':memory:' });
    for (let index = 1; index <= 5; index++) await store.appendTurn(turn(index, { tokenCount: index }));
    await store.appendTurn(turn(6, { conversationKey: 'web:other' }));
    const history = await store.history({ conversationKey: 'web:c1', limit: 3 });
    expect(history.map((stored) => stored.intentId)).toEqual(['intent-3', 'intent-4', 'intent-5']);
    expect(history[2]).toEqual(turn(5, { tokenCount: 5 }));
    expect(await store.history({ conversationKey: 'web:c1', limit: 0 })).toEqual([]);
    await store.close();
  });

  it('records answered intents per channel and keeps the first copy of a repeated intent', async () => {
    const store = createSqliteSessionStore({ path: ':memory:' });
    await store.appendTurn(turn(1));
    await store.appendTurn(turn(1, { replyText: 'second copy' }));
    expect(await store.hasIntent({ channel: 'web', intentId: 'intent-1' })).toBe(true);
    expect(await store.hasIntent({ channel: 'telegram', intentId: 'intent-1' })).toBe(false);
    expect(await store.hasIntent({ channel: 'web', intentId: 'intent-2' })).toBe(false);
    const history = await store.history({ conversationKey: 'web:c1', limit: 10 });
    expect(history.map((stored) => stored.replyText)).toEqual(['answer 1']);
    await store.close();
  });

  it('keeps turns across reopening a file, in WAL mode with the schema version recorded', async () => {
    const path = temporaryFile();
    const first = createSqliteSessionStore({ path });
    await first.appendTurn(turn(1, { outcome: 'error' }));
    await first.close();
    const second = createSqliteSessionStore({ path });
    expect(await second.hasIntent({ channel: 'web', intentId: 'intent-1' })).toBe(true);
    expect((await second.history({ conversationKey: 'web:c1', limit: 5 }))[0]?.outcome).toBe('error');
    await second.close();
    const raw = new DatabaseSync(path);
    expect(raw.prepare('PRAGMA journal_mode').get()).toEqual({ journal_mode: 'wal' });
    expect(raw.prepare('PRAGMA user_version').get()).toEqual({ user_version: 9 });
    raw.close();
  });

  it('refuses a file written by a newer schema instead of damaging it', async () => {
    const path = temporaryFile();
    await createSqliteSessionStore({ path }).close();
    const raw = new DatabaseSync(path);
    raw.exec('PRAGMA user_version = 99');
    raw.close();
    expect(() => createSqliteSessionStore({ path })).toThrow(/newer Nexus/);
  });

  it('serves history again after its own writes exactly as a read of the file would', async () => {
    const path = temporaryFile();
    const store = createSqliteSessionStore({ path });
    const read = async (limit: number) => store.history({ conversationKey: 'web:c1', limit });
    await store.appendTurn(turn(1, { tokenCount: 7 }));
    expect(await read(3)).toEqual([turn(1, { tokenCount: 7 })]);
    // Stored after the read: appended to what was read, the oldest leaving past the limit.
    for (let index = 2; index <= 4; index++) await store.appendTurn(turn(index));
    // A repeated intent keeps its first turn, in history too.
    await store.appendTurn(turn(4, { replyText: 'second copy' }));
    // A failing write stores nothing.
    await store.appendTurn(turn(5, { outcome: 'bogus' as StoredTurn['outcome'] })).catch(() => {});
    expect(await read(3)).toEqual([turn(2), turn(3), turn(4)]);
    // Shorter and longer reads than the one kept.
    expect((await read(2)).map((stored) => stored.intentId)).toEqual(['intent-3', 'intent-4']);
    expect((await read(10)).map((stored) => stored.intentId)).toEqual([
      'intent-1',
      'intent-2',
      'intent-3',
      'intent-4',
    ]);
    // What a fresh connection reads from the file is the same.
    const reopened = createSqliteSessionStore({ path });
    expect(await reopened.history({ conversationKey: 'web:c1', limit: 3 })).toEqual(await read(3));
    await reopened.close();
    await store.close();
  });

  it('reads history from the file again once another connection changed it', async () => {
    const path = temporaryFile();
    const gateway = createSqliteSessionStore({ path });
    await gateway.appendTurn(turn(1));
    await gateway.appendTurn(turn(2, { userId: 'web:u2' }));
    expect(await gateway.history({ conversationKey: 'web:c1', limit: 5 })).toHaveLength(2);
    // `nexus users forget` runs in its own process, on its own connection to the same file.
    const command = createSqliteSessionStore({ path });
    expect(await command.forgetPeople?.({ userIds: ['web:u1'] })).toBe(1);
    await command.close();
    // Another connection's commit is seen from the next pass of the event loop (the store reads
    // the file's version once per pass).
    await nextPassOfTheEventLoop();
    expect(
      (await gateway.history({ conversationKey: 'web:c1', limit: 5 })).map((stored) => stored.intentId),
    ).toEqual(['intent-2']);
    // A raw write counts too.
    const raw = new DatabaseSync(path);
    raw.prepare("UPDATE turns SET reply_text = 'changed' WHERE intent_id = 'intent-2'").run();
    raw.close();
    await nextPassOfTheEventLoop();
    expect((await gateway.history({ conversationKey: 'web:c1', limit: 5 }))[0]?.replyText).toBe('changed');
    await gateway.close();
  });

  it('tells onChangedElsewhere when another connection committed, not for its own commits', async () => {
    const path = temporaryFile();
    let told = 0;
    const gateway = createSqliteSessionStore({ path, onChangedElsewhere: () => (told += 1) });
    // The first read has nothing to compare with: it counts as a change.
    await gateway.history({ conversationKey: 'web:c1', limit: 5 });
    await nextPassOfTheEventLoop();
    const before = told;
    await gateway.appendTurn(turn(1));
    await nextPassOfTheEventLoop();
    await gateway.history({ conversationKey: 'web:c1', limit: 5 });
    expect(told).toBe(before);
    const command = createSqliteSessionStore({ path });
    await command.forgetPeople?.({ userIds: ['web:u1'] });
    await command.close();
    await nextPassOfTheEventLoop();
    await gateway.history({ conversationKey: 'web:c1', limit: 5 });
    expect(told).toBe(before + 1);
    await gateway.close();
  });

  it('fails clearly after close', async () => {
    const store = createSqliteSessionStore({ path: ':memory:' });
    await store.close();
    await store.close();
    await expect(store.history({ conversationKey: 'web:c1', limit: 1 })).rejects.toThrow(/closed/);
  });
});

describe('forgetting people', () => {
  it('deletes their turns in every conversation and their inbox entries, leaves others, and cuts the WAL', async () => {
    const path = temporaryFile();
    const store = createSqliteSessionStore({ path });
    const secret = 'secret-locker-code-7731';
    await store.appendTurn(turn(1, { userText: `my code is ${secret}` }));
    await store.appendTurn(turn(2, { conversationKey: 'group:g1', userText: `in the group: ${secret}` }));
    await store.appendTurn(turn(3, { conversationKey: 'group:g1', userId: 'web:u2', userText: 'hello all' }));
    const intent = {
      id: 'intent-9',
      channel: 'web',
      conversation: { id: 'c1', kind: 'direct' as const },
      sender: { platformId: 'u1' },
      userId: 'web:u1',
      text: `still waiting: ${secret}`,
      attachments: [],
      mentionsAssistant: true,
      receivedAt: new Date(0).toISOString(),
    };
    await store.admitIntent({
      channel: 'web',
      intentId: 'intent-9',
      conversationKey: 'web:c1',
      kind: 'turn',
      intent,
      decided: intent,
      acceptedAt: 1,
    });

    expect(await store.forgetPeople?.({ userIds: ['web:u1'] })).toBe(3);
    expect(await store.history({ conversationKey: 'web:c1', limit: 10 })).toEqual([]);
    expect((await store.history({ conversationKey: 'group:g1', limit: 10 })).map((t) => t.userId)).toEqual([
      'web:u2',
    ]);
    expect(await store.unfinishedIntents()).toEqual([]);
    for (const file of [path, `${path}-wal`]) {
      expect(readFileSync(file).includes(Buffer.from(secret)), file).toBe(false);
    }
    await store.close();
  });

  it('forgets one conversation, every generation of it, only the given people’s turns', async () => {
    const store = createSqliteSessionStore({ path: ':memory:' });
    await store.appendTurn(turn(1));
    await store.appendTurn(turn(2, { conversationKey: 'web:c1#1' }));
    await store.appendTurn(turn(3, { conversationKey: 'web:c1#2', userId: 'web:u2' }));
    await store.appendTurn(turn(4, { conversationKey: 'web:c10' }));
    await store.appendTurn(turn(5, { conversationKey: 'web:other' }));

    expect(
      await store.forgetConversation?.({ conversationKey: 'web:c1', userIds: ['web:u1', 'person-7'] }),
    ).toBe(2);
    expect(await store.history({ conversationKey: 'web:c1', limit: 10 })).toEqual([]);
    expect(await store.history({ conversationKey: 'web:c1#1', limit: 10 })).toEqual([]);
    // Another person's turn, a conversation whose key merely starts the same, and another conversation stay.
    expect((await store.history({ conversationKey: 'web:c1#2', limit: 10 })).map((t) => t.intentId)).toEqual([
      'intent-3',
    ]);
    expect((await store.history({ conversationKey: 'web:c10', limit: 10 })).map((t) => t.intentId)).toEqual([
      'intent-4',
    ]);
    expect((await store.history({ conversationKey: 'web:other', limit: 10 })).map((t) => t.intentId)).toEqual(
      ['intent-5'],
    );
    expect(await store.forgetConversation?.({ conversationKey: 'web:c1', userIds: ['web:u1'] })).toBe(0);
    await store.close();
  });
});
