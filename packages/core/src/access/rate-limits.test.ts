import { afterEach, describe, expect, it } from 'vitest';
import { type AccessCore, startAccessCore } from './testing/start-access-core.ts';

let setup: AccessCore | undefined;
afterEach(async () => {
  await setup?.close();
  setup = undefined;
});

const open = { directMessagePolicies: { test: 'open' as const } };

describe('rate limits on the test channel', () => {
  it('lets a burst of 100 from one person reach the model only up to the limit; others are unaffected', async () => {
    setup = await startAccessCore({
      ...open,
      rateLimits: { person: { burst: 5, perMinute: 5 }, global: { burst: 50, perMinute: 50 } },
    });
    const { channel, model, core } = setup;
    const results = await Promise.all(
      Array.from({ length: 100 }, (_, index) =>
        channel.send({ text: `flood ${index}`, senderId: 'flooder' }),
      ),
    );
    expect(results.every((result) => result.status === 'accepted')).toBe(true);
    await channel.send({ text: 'just one question', senderId: 'calm' });
    await core.whenIdle();

    const replies = channel.replies('dm:flooder');
    expect(replies).toHaveLength(100);
    expect(replies.slice(0, 5)).toEqual([
      'Echo: flood 0',
      'Echo: flood 1',
      'Echo: flood 2',
      'Echo: flood 3',
      'Echo: flood 4',
    ]);
    expect(
      replies.slice(5).every((text) => /faster than I can answer\. Please wait 12 seconds/.test(text)),
    ).toBe(true);
    expect(channel.replies('dm:calm')).toEqual(['Echo: just one question']);
    expect(model.chatRequests()).toHaveLength(6);
  });

  it('refills over time, and a global limit caps everyone together', async () => {
    setup = await startAccessCore({
      ...open,
      rateLimits: { person: { burst: 2, perMinute: 2 }, global: { burst: 3, perMinute: 3 } },
    });
    const { channel, model, core, advance } = setup;
    for (const sender of ['a', 'a', 'a', 'b', 'c'])
      await channel.send({ text: `from ${sender}`, senderId: sender });
    await core.whenIdle();
    expect(channel.replies('dm:a')).toEqual([
      'Echo: from a',
      'Echo: from a',
      expect.stringMatching(/faster than/),
    ]);
    expect(channel.replies('dm:b')).toEqual(['Echo: from b']);
    expect(channel.replies('dm:c')).toEqual([
      expect.stringMatching(/a lot of messages right now\. Please try again in 20 seconds/),
    ]);
    expect(model.chatRequests()).toHaveLength(3);

    advance(30_000);
    await channel.send({ text: 'later', senderId: 'a' });
    await core.whenIdle();
    expect(channel.replies('dm:a').at(-1)).toBe('Echo: later');
    expect(model.chatRequests()).toHaveLength(4);
  });

  it('does not limit channels marked exempt', async () => {
    setup = await startAccessCore({
      ...open,
      rateLimits: {
        person: { burst: 1, perMinute: 1 },
        global: { burst: 1, perMinute: 1 },
        exemptChannels: ['test'],
      },
    });
    const { channel, model, core } = setup;
    for (let index = 0; index < 4; index++) await channel.send({ text: `m${index}`, senderId: 'owner' });
    await core.whenIdle();
    expect(channel.replies('dm:owner')).toEqual(['Echo: m0', 'Echo: m1', 'Echo: m2', 'Echo: m3']);
    expect(model.chatRequests()).toHaveLength(4);
  });
});
