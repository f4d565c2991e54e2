import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { sessionToken } from './sqlite-schema.ts';

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
