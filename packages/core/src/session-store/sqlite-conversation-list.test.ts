import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { compilesOf } from '@nexus/sqlite-kit/testing';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { StoredTurn } from './session-store.ts';
import { createSessionTables } from './session-tables.ts';
import { createSqliteSessionStore } from './sqlite-session-store.ts';

const directories: string[] = [];
function temporaryFile(): string {
  const directory = mkdtempSync(join(tmpdir(), 'nexus-conversation-list-'));
  directories.push(directory);
  return join(directory, 'sessions.db');
}
/** The connection a store opens (its first `prepare`), to run its tables' statements on. */
function sessionDatabaseOf(open: () => unknown): DatabaseSync {
  const prepare = vi.spyOn(DatabaseSync.prototype, 'prepare');
  try {
    open();
    return prepare.mock.contexts[0] as DatabaseSync;
  } finally {
    prepare.mockRestore();
  }
}
afterEach(() => {
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
});

function turn(conversationId: string, index: number, overrides: Partial<StoredTurn> = {}): StoredTurn {
  return {
    conversationKey: `web:${conversationId}`,
    channel: 'web',
    userId: 'web:owner',
    intentId: `web:owner:m${conversationId}${index}`,
    userText: `question ${index}`,
    replyText: `answer ${index}`,
    outcome: 'ok',
    createdAt: 1_000 + index,
    ...overrides,
  };
}

describe('sqlite conversation list', () => {
  it('returns from claim, touch and rename the whole entry a read of the row gives, compiled once', async () => {
    const store = createSqliteSessionStore({ path: ':memory:' });
    const list = store.conversations!;
    const read = (conversationId: string) => list.get({ channel: 'web', conversationId });
    const created = await list.claim({
      channel: 'web',
      conversationId: 'a',
      owner: 'owner',
      title: 'First',
      at: 10,
    });
    expect(created).toEqual({
      channel: 'web',
      conversationId: 'a',
      owner: 'owner',
      title: 'First',
      renamed: false,
      createdAt: 10,
      updatedAt: 10,
    });
    expect(created).toEqual(await read('a'));
    expect(await list.touch({ channel: 'web', conversationId: 'a', at: 20 })).toEqual(await read('a'));
    const renamed = await list.rename({
      channel: 'web',
      conversationId: 'a',
      owner: 'owner',
      title: 'Named',
    });
    expect(renamed).toMatchObject({ title: 'Named', renamed: true, updatedAt: 20 });
    expect(renamed).toEqual(await read('a'));
    const again = await list.claim({
      channel: 'web',
      conversationId: 'a',
      owner: 'owner',
      title: 'Ignored',
      at: 30,
    });
    expect(again).toMatchObject({ title: 'Named', renamed: true, createdAt: 10, updatedAt: 30 });
    expect(again).toEqual(await read('a'));
    expect(await list.markDeleted({ channel: 'web', conversationId: 'a', owner: 'owner', at: 40 })).toBe(
      true,
    );
    const revived = await list.claim({
      channel: 'web',
      conversationId: 'a',
      owner: 'owner',
      title: 'Anew',
      at: 50,
    });
    expect(revived).toMatchObject({ title: 'Anew', renamed: false, updatedAt: 50 });
    expect(revived).toEqual(await read('a'));
    expect(revived).not.toHaveProperty('deletedAt');
    // Nothing comes back for another person's conversation, an unlisted one, or a deleted one.
    expect(
      await list.claim({ channel: 'web', conversationId: 'a', owner: 'other', title: 'x', at: 60 }),
    ).toBeUndefined();
    expect(await list.touch({ channel: 'web', conversationId: 'none', at: 60 })).toBeUndefined();
    expect(
      await list.rename({ channel: 'web', conversationId: 'a', owner: 'other', title: 'x' }),
    ).toBeUndefined();

    const database = sessionDatabaseOf(() => createSqliteSessionStore({ path: ':memory:' }));
    const tables = createSessionTables(database, {
      write: async (operation) => operation(),
      writeOne: async (operation) => operation(),
      settled: () => {},
      historyChanged: () => {},
    });
    let at = 0;
    const messages = () => {
      for (const conversationId of ['b', 'c', 'b']) {
        at += 1;
        void tables.conversations.claim({ channel: 'web', conversationId, owner: 'owner', title: 't', at });
        void tables.conversations.touch({ channel: 'web', conversationId, at });
        void tables.conversations.rename({ channel: 'web', conversationId, owner: 'owner', title: `t${at}` });
      }
    };
    expect(compilesOf(database, messages)).toBe(0);
    await store.close();
  });

  it("lists a person's conversations newest first, never another person's, and keeps a deleted one as a tombstone", async () => {
    const store = createSqliteSessionStore({ path: temporaryFile() });
    const list = store.conversations!;
    expect(
      await list.claim({ channel: 'web', conversationId: 'a', owner: 'owner', title: 'First', at: 10 }),
    ).toMatchObject({ owner: 'owner', title: 'First', renamed: false, createdAt: 10, updatedAt: 10 });
    await list.claim({ channel: 'web', conversationId: 'b', owner: 'owner', title: 'Second', at: 20 });
    await list.claim({ channel: 'web', conversationId: 'x', owner: 'invite-1', title: 'Theirs', at: 30 });
    // Another person cannot take an id that is listed for someone else.
    expect(
      await list.claim({ channel: 'web', conversationId: 'a', owner: 'invite-1', title: 'Mine', at: 40 }),
    ).toBeUndefined();
    expect(await list.touch({ channel: 'web', conversationId: 'a', at: 50 })).toMatchObject({
      updatedAt: 50,
    });
    // A late touch or message never moves it back; a message keeps the title it has.
    expect(await list.touch({ channel: 'web', conversationId: 'a', at: 45 })).toMatchObject({
      updatedAt: 50,
    });
    expect(
      await list.claim({ channel: 'web', conversationId: 'a', owner: 'owner', title: 'Other', at: 45 }),
    ).toMatchObject({ title: 'First', createdAt: 10, updatedAt: 50 });
    expect(await list.touch({ channel: 'web', conversationId: 'unlisted', at: 50 })).toBeUndefined();
    const owners = await list.list({ channel: 'web', owner: 'owner', limit: 10 });
    expect(owners.map((entry) => [entry.conversationId, entry.title, entry.updatedAt])).toEqual([
      ['a', 'First', 50],
      ['b', 'Second', 20],
    ]);
    expect((await list.list({ channel: 'web', owner: 'invite-1', limit: 10 })).map((e) => e.title)).toEqual([
      'Theirs',
    ]);

    expect(
      await list.rename({ channel: 'web', conversationId: 'b', owner: 'invite-1', title: 'Hijack' }),
    ).toBeUndefined();
    const renamed = await list.rename({
      channel: 'web',
      conversationId: 'b',
      owner: 'owner',
      title: 'Plans',
    });
    expect(renamed).toMatchObject({ title: 'Plans', renamed: true, updatedAt: 20 });

    expect(await list.markDeleted({ channel: 'web', conversationId: 'a', owner: 'invite-1', at: 70 })).toBe(
      false,
    );
    expect(await list.markDeleted({ channel: 'web', conversationId: 'a', owner: 'owner', at: 70 })).toBe(
      true,
    );
    expect(
      (await list.list({ channel: 'web', owner: 'owner', limit: 10 })).map((e) => e.conversationId),
    ).toEqual(['b']);
    expect(await list.get({ channel: 'web', conversationId: 'a' })).toMatchObject({ deletedAt: 70 });
    // A turn stored late does not list a deleted conversation again.
    expect(await list.touch({ channel: 'web', conversationId: 'a', at: 75 })).toBeUndefined();
    expect(await list.get({ channel: 'web', conversationId: 'a' })).toMatchObject({ updatedAt: 50 });
    // A stale browser's import does not bring it back; a new message of the owner's does.
    const again = {
      channel: 'web',
      owner: 'owner',
      userId: 'web:owner',
      conversationId: 'a',
      title: 'First',
      renamed: false,
      createdAt: 10,
      updatedAt: 10,
      exchanges: [],
    };
    expect(await list.importConversation(again)).toBe('deleted');
    const revived = await list.claim({
      channel: 'web',
      conversationId: 'a',
      owner: 'owner',
      title: 'Anew',
      at: 80,
    });
    expect(revived).toMatchObject({
      owner: 'owner',
      title: 'Anew',
      renamed: false,
      createdAt: 10,
      updatedAt: 80,
    });
    expect(revived?.deletedAt).toBeUndefined();
    await store.close();
  });

  it('reads history from the stored turns, newest page first and bounded, with the edit and the chosen reply', async () => {
    const store = createSqliteSessionStore({ path: temporaryFile() });
    const list = store.conversations!;
    for (let index = 1; index <= 5; index += 1)
      await store.appendTurn(turn('c', index, { replyId: `r${index}` }));
    // A later generation (after `/new`) is the same conversation; a note is for the model only.
    await store.appendTurn(turn('c', 6, { conversationKey: 'web:c#1', replyId: 'r6' }));
    await store.appendTurn(turn('other', 1));
    await store.applyRevision({
      channel: 'web',
      intentId: 'web:owner:edit',
      targetIntentId: 'web:owner:mc6',
      kind: 'edit',
      userId: 'web:owner',
      createdAt: 2_000,
      change: {
        type: 'replace',
        turn: turn('c', 6, {
          conversationKey: 'web:c#1',
          intentId: 'web:owner:mc6',
          userText: 'question 6, edited',
          replyText: 'answer to the edit',
          replyId: 'r6b',
        }),
      },
    });

    const newest = await list.messages({ channel: 'web', conversationId: 'c', limit: 4 });
    expect(newest.more).toBe(true);
    expect(newest.messages.map((message) => message.userText)).toEqual([
      'question 3',
      'question 4',
      'question 5',
      'question 6, edited',
    ]);
    expect(newest.messages.at(-1)).toMatchObject({ replyText: 'answer to the edit', replyId: 'r6b' });
    const older = await list.messages({
      channel: 'web',
      conversationId: 'c',
      limit: 4,
      before: newest.messages[0]!.seq,
    });
    expect(older).toMatchObject({ more: false });
    expect(older.messages.map((message) => [message.userText, message.replyId])).toEqual([
      ['question 1', 'r1'],
      ['question 2', 'r2'],
    ]);
    await store.close();
  });

  it('imports a browser-held conversation once; the gateway keeps its own turns when it has them', async () => {
    const path = temporaryFile();
    const store = createSqliteSessionStore({ path });
    const list = store.conversations!;
    const held = {
      channel: 'web',
      owner: 'owner',
      userId: 'web:owner',
      conversationId: 'old',
      title: 'From before',
      renamed: true,
      createdAt: 5,
      updatedAt: 9,
      exchanges: [
        { intentId: 'web:owner:h1', userText: 'hi', replyText: 'hello', createdAt: 6 },
        { intentId: 'web:owner:h2', userText: 'and?', replyText: 'and more', createdAt: 7 },
      ],
    };
    expect(await list.importConversation(held)).toBe('imported');
    expect(await list.importConversation(held)).toBe('present');
    expect(await list.importConversation({ ...held, owner: 'invite-1', userId: 'web:invite-1' })).toBe(
      'foreign',
    );
    const read = await list.messages({ channel: 'web', conversationId: 'old', limit: 10 });
    expect(read.messages.map((message) => [message.userText, message.replyText])).toEqual([
      ['hi', 'hello'],
      ['and?', 'and more'],
    ]);
    // Imported turns are history the model sees too.
    expect((await store.history({ conversationKey: 'web:old', limit: 10 })).map((t) => t.userText)).toEqual([
      'hi',
      'and?',
    ]);
    expect(await list.get({ channel: 'web', conversationId: 'old' })).toMatchObject({
      title: 'From before',
      renamed: true,
    });

    await store.appendTurn(turn('served', 1));
    expect(
      await list.importConversation({
        ...held,
        conversationId: 'served',
        exchanges: held.exchanges.map((e) => ({ ...e, intentId: `${e.intentId}x` })),
      }),
    ).toBe('imported');
    const served = await list.messages({ channel: 'web', conversationId: 'served', limit: 10 });
    expect(served.messages.map((message) => message.userText)).toEqual(['question 1']);
    await store.close();

    // Forgetting the person takes their list with their turns.
    const reopened = createSqliteSessionStore({ path });
    await reopened.forgetPeople?.({ userIds: ['web:owner'] });
    expect(await reopened.conversations!.list({ channel: 'web', owner: 'owner', limit: 10 })).toEqual([]);
    await reopened.close();
    const raw = new DatabaseSync(path);
    expect(raw.prepare('SELECT count(*) AS n FROM conversation_list').get()).toEqual({ n: 0 });
    raw.close();
  });
});
