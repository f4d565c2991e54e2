import { createHash } from 'node:crypto';
import { DatabaseSync } from 'node:sqlite';
import { describe, expect, it } from 'vitest';
import {
  MEMORY_COLUMNS,
  type MemoryRow,
  memoryFromRow,
  memoryRowOf,
  SQLITE_TABLES,
  sessionToken,
} from './sqlite-schema.ts';

const hashed = (userId: string, sessionId: string) =>
  `s${createHash('sha256').update(userId).update('\u0000').update(sessionId).digest('hex').slice(0, 32)}x`;

describe('session tokens', () => {
  it('are the hash of the person and the session, asked again or not, never shared between pairs', () => {
    // Pairs whose ids run together alike: a kept token must never answer for the other pair.
    const pairs: Array<[string, string]> = [
      ['ab', 'c'],
      ['a', 'bc'],
      ['1:a', 'b'],
      ['1', ':ab'],
      ['ada', 'web:1'],
      ['bob', 'web:1'],
    ];
    for (let round = 0; round < 3; round += 1) {
      for (const [userId, sessionId] of pairs)
        expect(sessionToken(userId, sessionId)).toBe(hashed(userId, sessionId));
    }
    expect(new Set(pairs.map(([userId, sessionId]) => sessionToken(userId, sessionId))).size).toBe(
      pairs.length,
    );
    // Past the kept number the memo starts over, with the same answers.
    for (let index = 0; index < 2_500; index += 1)
      expect(sessionToken('ada', `s${index}`)).toBe(hashed('ada', `s${index}`));
    expect(sessionToken('ab', 'c')).toBe(hashed('ab', 'c'));
  });
});

describe('memoryRowOf', () => {
  it('reads a row returned as an array as the same row returned as an object', () => {
    const database = new DatabaseSync(':memory:');
    database.exec(SQLITE_TABLES);
    database
      .prepare(
        `INSERT INTO memories (${MEMORY_COLUMNS}) VALUES (7, 'm1', 'ada', 'session', 'web:1', 'Lives in Lisbon',
         'fact', 'user_explicit', 10, 20, 30, 'h', '{"from":"import"}')`,
      )
      .run();
    const read = database.prepare(`SELECT ${MEMORY_COLUMNS} FROM memories`);
    const asObject = read.get() as unknown as MemoryRow;
    read.setReturnArrays(true);
    const asArray = read.get() as unknown as unknown[];
    expect(memoryRowOf(asArray)).toEqual({ ...asObject });
    expect(memoryFromRow(memoryRowOf(asArray))).toMatchObject({ sessionId: 'web:1', lastUsedAt: 30 });
    database.close();
  });
});
