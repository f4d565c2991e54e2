import { DatabaseSync } from 'node:sqlite';
import { intentSchema } from '@nexus/protocol';
import { compilesOf } from '@nexus/sqlite-kit/testing';
import { describe, expect, it, vi } from 'vitest';
import { createSqliteIntentInbox } from './sqlite-intent-inbox.ts';
import { createSqliteSessionStore } from './sqlite-session-store.ts';
import { createSqliteTurns, INTENT_SEEN } from './sqlite-turns.ts';

/** A migrated session file's connection (the store's own), to run the turn statements on. */
function sessionDatabase(): DatabaseSync {
  const prepare = vi.spyOn(DatabaseSync.prototype, 'prepare');
  try {
    createSqliteSessionStore({ path: ':memory:' });
    return prepare.mock.contexts[0] as DatabaseSync;
  } finally {
    prepare.mockRestore();
  }
}

describe('sqlite turns: newest', () => {
  it('compiles its history read once, not on every run, and reads the same rows as `= ?`', () => {
    const database = sessionDatabase();
    const turns = createSqliteTurns(database);
    for (let index = 0; index < 30; index += 1) {
      turns.insert({
        conversationKey: index % 3 === 0 ? 'web:other' : 'web:chat',
        channel: 'web',
        userId: 'person-1',
        intentId: `intent-${index}`,
        userText: `question ${index}`,
        replyText: `answer ${index}`,
        outcome: 'ok',
        createdAt: 1_000 + (index % 4),
      });
    }
    const reads = () => {
      for (let run = 0; run < 5; run += 1) {
        turns.newest('web:chat', 5);
        turns.newest('web:other', 20);
        turns.newest('web:none', 5);
      }
    };
    expect(compilesOf(database, reads)).toBe(0);

    for (const [key, limit] of [
      ['web:chat', 5],
      ['web:other', 20],
      ['web:chat', 50],
    ] as const) {
      const bound = database
        .prepare(`SELECT intent_id FROM turns WHERE conversation_key = ? ORDER BY seq DESC LIMIT ${limit}`)
        .all(key)
        .map((row) => row.intent_id)
        .reverse();
      expect(turns.newest(key, limit).map((turn) => turn.intentId)).toEqual(bound);
    }
    expect(turns.newest('web:chat', 2).map((turn) => turn.intentId)).toEqual(['intent-28', 'intent-29']);
  });

  it('binds one value for each parameter of the seen condition', () => {
    const parameters = INTENT_SEEN.sql.match(/\?/gu) ?? [];
    expect(INTENT_SEEN.values('web', 'intent-1')).toHaveLength(parameters.length);
  });

  it('counts an intent seen when answered, revised, deleted or waiting, per channel, compiled once', () => {
    const database = sessionDatabase();
    const turns = createSqliteTurns(database);
    const inbox = createSqliteIntentInbox(database, INTENT_SEEN);
    turns.insert({
      conversationKey: 'web:chat',
      channel: 'web',
      userId: 'person-1',
      intentId: 'answered',
      userText: 'q',
      replyText: 'a',
      outcome: 'ok',
      createdAt: 1,
    });
    database.exec(`INSERT INTO revisions (channel, intent_id, target_intent_id, kind, change, user_id, created_at)
      VALUES ('web', 'an-edit', 'answered', 'edit', 'replace', 'person-1', 2),
             ('web', 'a-delete', 'deleted', 'delete', 'delete', 'person-1', 3),
             ('web', 'kept-delete', 'kept', 'delete', 'ignored', 'person-1', 4)`);
    const intent = intentSchema.parse({
      id: 'waiting',
      channel: 'web',
      conversation: { id: 'chat', kind: 'direct' },
      sender: { platformId: 'person-1' },
      userId: 'person-1',
      text: 'hello',
      attachments: [],
      mentionsAssistant: true,
      receivedAt: new Date(0).toISOString(),
    });
    const entry = {
      channel: 'web',
      intentId: 'waiting',
      conversationKey: 'web:chat',
      kind: 'turn' as const,
      intent,
      decided: intent,
      acceptedAt: 5,
    };
    expect(inbox.admit(entry)).toBe('admitted');
    expect(inbox.admit(entry)).toBe('duplicate');
    expect(inbox.admit({ ...entry, intentId: 'answered' })).toBe('duplicate');
    expect(inbox.admit({ ...entry, intentId: 'deleted' })).toBe('duplicate');

    const ids = ['answered', 'an-edit', 'a-delete', 'deleted', 'waiting', 'kept', 'never'];
    expect(ids.map((intentId) => turns.seen({ channel: 'web', intentId }))).toEqual([
      true,
      true,
      true,
      true,
      true,
      false,
      false,
    ]);
    expect(ids.some((intentId) => turns.seen({ channel: 'telegram', intentId }))).toBe(false);
    let admitted = 0;
    const checks = () => {
      for (const intentId of ids) turns.seen({ channel: 'web', intentId });
      admitted += 1;
      inbox.admit({ ...entry, intentId: `new-${admitted}` });
    };
    expect(compilesOf(database, checks)).toBe(0);
  });
});
