import { describe, expect, it } from 'vitest';
import { wasIntentTaken } from './was-intent-taken.ts';

describe('wasIntentTaken', () => {
  it('acknowledges accepted, duplicate and final rejections only', () => {
    expect(wasIntentTaken({ status: 'accepted' })).toBe(true);
    expect(wasIntentTaken({ status: 'duplicate' })).toBe(true);
    expect(wasIntentTaken({ status: 'rejected', code: 'not_allowed', message: 'no' })).toBe(true);
    expect(wasIntentTaken({ status: 'rejected', code: 'shutting_down', message: 'later' })).toBe(false);
    const busy = { status: 'rejected', code: 'store_busy', message: 'later', retryable: true } as const;
    expect(wasIntentTaken(busy)).toBe(false);
  });
});
