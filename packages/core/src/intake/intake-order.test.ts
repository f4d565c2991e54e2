import { describe, expect, it } from 'vitest';
import { createIntakeOrder } from './intake-order.ts';

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('createIntakeOrder', () => {
  it('finishes one conversation’s intakes in the order they started, even when an earlier one is slower', async () => {
    const order = createIntakeOrder();
    const finished: string[] = [];
    const slow = order.run('web:c1', async () => {
      await pause(30);
      finished.push('edit');
      return 'edit';
    });
    const fast = order.run('web:c1', async () => {
      finished.push('message');
      return 'message';
    });
    expect(await Promise.all([slow, fast])).toEqual(['edit', 'message']);
    expect(finished).toEqual(['edit', 'message']);
  });

  it('lets other conversations through, and a failed intake does not hold up the next one', async () => {
    const order = createIntakeOrder();
    const finished: string[] = [];
    const failing = order.run('web:c1', async () => {
      await pause(30);
      throw new Error('store unavailable');
    });
    const next = order.run('web:c1', async () => finished.push('c1 next'));
    const other = order.run('web:c2', async () => finished.push('c2'));
    await expect(failing).rejects.toThrow('store unavailable');
    await Promise.all([next, other]);
    expect(finished).toEqual(['c2', 'c1 next']);
  });
});
