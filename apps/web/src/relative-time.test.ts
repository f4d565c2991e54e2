import { describe, expect, it } from 'vitest';
import { relativeTime } from './relative-time.ts';

const day = 86_400_000;
const now = Date.UTC(2026, 10, 27, 12);

describe('relativeTime', () => {
  it.each([
    [now - 5_000, 'just now'],
    [now - 5 * 60_000, '5 minutes ago'],
    [now - 2 * 3_600_000, '2 hours ago'],
    [now - day, 'yesterday'],
    [now - 3 * day, '3 days ago'],
    [now - 15 * day, '2 weeks ago'],
    [now - 400 * day, 'last year'],
  ])('says how long ago %i was', (at, expected) => {
    expect(relativeTime(at, now, 'en')).toBe(expected);
  });
});
