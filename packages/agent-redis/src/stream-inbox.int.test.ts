import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStreamInbox, sendToInbox, streamIdAfter } from './stream-inbox.ts';

// Against the real Redis on 127.0.0.1:6379: what one process reads from its inbox stream.

const REDIS_URL = 'redis://127.0.0.1:6379';
const key = `nexus-test-inbox-${randomBytes(4).toString('hex')}`;
let commands: Redis;

beforeAll(() => {
  commands = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
});
afterAll(async () => {
  await commands.del(key);
  commands.disconnect();
});

async function until(condition: () => Promise<boolean> | boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('stream inbox', () => {
  it('trims below the id after the last one read, so nothing written later goes', async () => {
    expect(streamIdAfter('1700000000000-0')).toBe('1700000000000-1');
    expect(streamIdAfter('5-9')).toBe('5-10');
    expect(streamIdAfter('5-18446744073709551614')).toBe('5-18446744073709551615');
    // Redis' own reading of it: MINID removes the ids below, the last one read included.
    await commands.xadd(key, '5-1', 'm', '1');
    await commands.xadd(key, '5-2', 'm', '2');
    await commands.xadd(key, '6-0', 'm', '3');
    await commands.xtrim(key, 'MINID', streamIdAfter('5-2'));
    expect((await commands.xrange(key, '-', '+')).map(([id]) => id)).toEqual(['6-0']);
    await commands.del(key);
  });

  it('hands over every message once, in order, and trims what it read in one go soon after', async () => {
    const received: unknown[] = [];
    const inbox = await openStreamInbox({
      reader: new Redis(REDIS_URL, { maxRetriesPerRequest: 1 }),
      commands,
      key,
      blockMs: 200,
      trimAfterMs: 100,
      onMessage: (message) => received.push(message),
    });
    try {
      // Sent without waiting for each other: the connection keeps their order.
      await Promise.all(Array.from({ length: 30 }, (_, seq) => sendToInbox(commands, key, { seq })));
      await until(() => received.length === 30);
      expect(received).toEqual(Array.from({ length: 30 }, (_, seq) => ({ seq })));
      // The sender renewed the key's TTL; the reader trims everything it read (the opening entry too).
      expect(await commands.pttl(key)).toBeGreaterThan(60_000);
      await until(async () => (await commands.xlen(key)) === 0);
      // A message after the trim still arrives; the stream itself was kept.
      await sendToInbox(commands, key, { seq: 30 });
      await until(() => received.length === 31);
      expect(received.at(-1)).toEqual({ seq: 30 });
      await until(async () => (await commands.xlen(key)) === 0);
    } finally {
      await inbox.close();
    }
    expect(await commands.exists(key)).toBe(0);
  });
});
