import { describe, expect, it } from 'vitest';
import { createAttachmentRefusals } from './attachment-refusals.ts';

const DAY = 24 * 60 * 60 * 1000;

describe('attachment refusals', () => {
  it('blocks a person after their allowance until the oldest refusal is a day old, others untouched', () => {
    let now = 1_000_000;
    const refusals = createAttachmentRefusals({ perDay: 3, now: () => now });
    for (let index = 0; index < 3; index += 1) {
      expect(refusals.blockedUntil('telegram:ann')).toBeUndefined();
      refusals.record('telegram:ann');
      now += 1000;
    }
    expect(refusals.blockedUntil('telegram:ann')).toBe(1_000_000 + DAY);
    expect(refusals.blockedUntil('discord:bob')).toBeUndefined();
    now = 1_000_000 + DAY + 1;
    expect(refusals.blockedUntil('telegram:ann')).toBeUndefined();
  });
});
