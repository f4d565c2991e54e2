import { afterEach, describe, expect, it } from 'vitest';
import { type AccessCore, startAccessCore } from '../access/testing/start-access-core.ts';
import { createInMemoryMemory } from '../memory/testing/in-memory-memory.ts';
import { MEMORIES_PAGE_SIZE } from './memory-commands.ts';

/** Core's in-memory memory plus the `reset` the commands need (deletes every memory of the person). */
function commandMemory(options: { now?: () => number } = {}) {
  const { port } = createInMemoryMemory(options);
  const reset = async ({ userId }: { userId: string }) => {
    const all = await port.list({ userId, limit: 1_000 });
    for (const record of all) await port.delete({ userId, id: record.id });
    return { deleted: all.length };
  };
  return { ...port, reset };
}

let setup: AccessCore | undefined;
afterEach(async () => {
  await setup?.close();
  setup = undefined;
});

async function ask(text: string, senderId = 'ann', conversationId?: string): Promise<string> {
  if (!setup) throw new Error('no setup');
  const where = conversationId ?? `dm:${senderId}`;
  await setup.channel.send({
    text,
    senderId,
    ...(conversationId ? { kind: 'group' as const, conversationId } : {}),
  });
  return setup.channel.waitForReply(where);
}

describe('/memories pages and /forget <n>', () => {
  it('pages through every memory, numbered, and deletes exactly the one a number showed', async () => {
    // Listings are newest first; a clock that runs backwards makes "Fact number 1" the newest.
    let clock = 2_000_000_000_000;
    const memory = commandMemory({ now: () => clock-- });
    for (let index = 1; index <= MEMORIES_PAGE_SIZE + 5; index++) {
      await memory.add({ userId: 'test:ann', content: `Fact number ${index}`, category: 'fact' });
    }
    await memory.add({ userId: 'test:bob', content: 'Bob plays chess' });
    setup = await startAccessCore({ directMessagePolicies: { test: 'open' }, memory });

    const first = await ask('/memories');
    expect(first).toContain('1. Fact number 1 (fact)');
    expect(first).toContain(`${MEMORIES_PAGE_SIZE}. Fact number ${MEMORIES_PAGE_SIZE} (fact)`);
    expect(first).toContain('Send /memories 2 for the next page.');
    expect(first).not.toContain('chess');
    const second = await ask('/memories 2');
    expect(second).toContain(`${MEMORIES_PAGE_SIZE + 1}. Fact number ${MEMORIES_PAGE_SIZE + 1}`);
    expect(second).toContain(`${MEMORIES_PAGE_SIZE + 5}. Fact number ${MEMORIES_PAGE_SIZE + 5}`);
    expect(second).not.toContain('next page');
    expect(await ask('/memories 9')).toMatch(/There is no page 9/);
    expect(await ask('/memories two')).toMatch(/not a page number/);

    // Numbers refer to the last listing: page 2 was the last one shown.
    expect(await ask(`/forget ${MEMORIES_PAGE_SIZE + 2}`)).toBe(
      `Deleted memory ${MEMORIES_PAGE_SIZE + 2}: "Fact number ${MEMORIES_PAGE_SIZE + 2}"`,
    );
    // A second /forget of the same number deletes nothing else.
    expect(await ask(`/forget ${MEMORIES_PAGE_SIZE + 2}`)).toMatch(/no memory numbered/);
    const left = await memory.list({ userId: 'test:ann', limit: 100 });
    expect(left).toHaveLength(MEMORIES_PAGE_SIZE + 4);
    expect(left.map((row) => row.content)).not.toContain(`Fact number ${MEMORIES_PAGE_SIZE + 2}`);
    expect(await memory.list({ userId: 'test:bob' })).toHaveLength(1);
    expect(setup.model.chatRequests()).toHaveLength(0);
  });

  it('refuses a /forget without a listing or with a bad number, and deletes nothing', async () => {
    const memory = commandMemory();
    await memory.add({ userId: 'test:ann', content: 'Lives in Lisbon' });
    setup = await startAccessCore({ directMessagePolicies: { test: 'open' }, memory });
    expect(await ask('/forget 1')).toMatch(/Send \/memories to see the numbers/);
    expect(await ask('/forget')).toMatch(/Send \/forget with the number/);
    expect(await ask('/forget -1')).toMatch(/Send \/forget with the number/);
    await ask('/memories');
    expect(await ask('/forget 2')).toMatch(/no memory numbered 2/);
    expect(await memory.list({ userId: 'test:ann' })).toHaveLength(1);
    expect(await ask('/forget 1')).toBe('Deleted memory 1: "Lives in Lisbon"');
    expect(await memory.list({ userId: 'test:ann' })).toHaveLength(0);
  });

  it('in a group lists and forgets only the group memory, never a member', async () => {
    const memory = commandMemory();
    await memory.add({ userId: 'test:ann', content: 'Ann is private' });
    await memory.add({ userId: 'group:test:team', content: 'The team ships on Fridays' });
    setup = await startAccessCore({
      directMessagePolicies: { test: 'open' },
      groupAllowlist: ['test:team'],
      memory,
    });
    const listed = await ask('/memories', 'ann', 'team');
    expect(listed).toContain('1. The team ships on Fridays');
    expect(listed).not.toContain('private');
    expect(await ask('/forget 1', 'ann', 'team')).toMatch(/Deleted memory 1: "The team ships on Fridays"/);
    expect(await memory.list({ userId: 'group:test:team' })).toHaveLength(0);
    expect(await memory.list({ userId: 'test:ann' })).toHaveLength(1);
  });

  it('/start introduces what is remembered and how to see or delete it', async () => {
    setup = await startAccessCore({ directMessagePolicies: { test: 'open' }, memory: commandMemory() });
    const intro = await ask('/start');
    expect(intro).toMatch(/I remember what you tell me/);
    expect(intro).toContain('/memories');
    expect(intro).toContain('/forget-me');
    expect(setup.model.chatRequests()).toHaveLength(0);
  });
});
