import { createSqliteMemoryStore, MemoryService, type SqliteMemoryStore } from '@nexus/memory';
import { afterEach, describe, expect, it } from 'vitest';
import { type AccessCore, startAccessCore } from '../access/testing/start-access-core.ts';

let setup: AccessCore | undefined;
let service: MemoryService | undefined;
let memoryStore: SqliteMemoryStore | undefined;
afterEach(async () => {
  await setup?.close();
  await memoryStore?.close();
  setup = undefined;
  service = undefined;
  memoryStore = undefined;
});

function realMemory(): MemoryService {
  memoryStore = createSqliteMemoryStore({ path: ':memory:' });
  service = new MemoryService({ store: memoryStore });
  return service;
}

async function ask(text: string, senderId: string, conversationId = `dm:${senderId}`): Promise<string> {
  if (!setup) throw new Error('no setup');
  const group = !conversationId.startsWith('dm:');
  await setup.channel.send({
    text,
    senderId,
    conversationId,
    ...(group ? { kind: 'group' as const, mentionsAssistant: true } : {}),
  });
  return setup.channel.waitForReply(conversationId);
}

describe('/forget-me', () => {
  it('erases the group memories tagged with the speaker, and only theirs', async () => {
    service = realMemory();
    setup = await startAccessCore({
      directMessagePolicies: { test: 'open' },
      groupAllowlist: ['test:*'],
      memory: service,
    });
    await ask('hello team', 'ann', 'team');
    await ask('hello team', 'bob', 'team');
    await service.add({
      userId: 'group:test:team',
      content: 'Ann is moving to Porto',
      metadata: { speaker: 'test:ann' },
    });
    await service.add({
      userId: 'group:test:team',
      content: 'The team ships on Fridays',
      metadata: { speaker: 'test:bob' },
    });
    await service.add({ userId: 'group:test:team', content: 'Standup is at ten' });

    expect(await ask('/forget-me', 'ann')).toMatch(/send \*\*\/forget-me confirm\*\*/);
    expect(await ask('/forget-me confirm', 'ann')).toMatch(/^Done\./);
    const left = (await service.list({ userId: 'group:test:team' })).map((memory) => memory.content);
    expect(left.sort()).toEqual(['Standup is at ten', 'The team ships on Fridays']);
    expect(setup.store.groupSpeakers.groupsOf(['test:ann'])).toEqual([]);
    expect(setup.store.groupSpeakers.groupsOf(['test:bob'])).toEqual(['group:test:team']);
  });

  it('on a linked person, erases nothing until every linked account confirms', async () => {
    service = realMemory();
    setup = await startAccessCore({ directMessagePolicies: { test: 'open' }, memory: service });
    const { store } = setup;
    store.identities.ensure({ channel: 'test', platformId: 'ann', displayName: 'Ann' });
    store.identities.ensure({ channel: 'test', platformId: 'phone', displayName: 'Ann *P*' });
    store.identities.link({ identity: { channel: 'test', platformId: 'phone' }, toUserId: 'test:ann' });
    await service.add({ userId: 'test:ann', content: 'Prefers window seats' });
    await service.add({ userId: 'test:phone', content: 'Said on the phone before linking' });

    const question = await ask('/forget-me', 'ann');
    expect(question).toContain('This account is linked with Ann \\*P\\* (test:phone)');
    expect(await ask('/forget-me confirm', 'ann')).toMatch(
      /Nothing is deleted yet: Ann \\\*P\\\* \(test:phone\) must also/,
    );
    expect(await service.list({ userId: 'test:ann' })).toHaveLength(1);
    expect(await service.list({ userId: 'test:phone' })).toHaveLength(1);
    // The other account's confirm without its own /forget-me first is not taken.
    expect(await ask('/forget-me confirm', 'phone')).toMatch(/nothing to confirm/);
    expect(store.identities.find({ channel: 'test', platformId: 'phone' })?.userId).toBe('test:ann');

    await ask('/forget-me', 'phone');
    expect(await ask('/forget-me confirm', 'phone')).toMatch(/^Done\./);
    expect(await service.list({ userId: 'test:ann' })).toHaveLength(0);
    expect(await service.list({ userId: 'test:phone' })).toHaveLength(0);
    expect(store.identities.find({ channel: 'test', platformId: 'phone' })?.userId).toBe('test:phone');
  });
});
