import { DatabaseSync } from 'node:sqlite';
import { compilesOf } from '@nexus/sqlite-kit/testing';
import { describe, expect, it, vi } from 'vitest';
import { createSqliteSessionStore } from './sqlite-session-store.ts';
import { createSqliteTurns } from './sqlite-turns.ts';

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
});
