import { describe, expect, it } from 'vitest';
import { describeMemoryAge } from './memory-age.ts';

const DAY_MS = 86_400_000;

describe('describeMemoryAge', () => {
  it.each([
    [0, 'today'],
    [0.9, 'today'],
    [1, 'yesterday'],
    [3, '3 days ago'],
    [7, '1 week ago'],
    [14, '2 weeks ago'],
    [30, '1 month ago'],
    [95, '3 months ago'],
    [400, '1 year ago'],
    [-2, 'today'],
  ])('%d days → %s', (days, expected) => {
    expect(describeMemoryAge(days * DAY_MS)).toBe(expected);
  });
});
