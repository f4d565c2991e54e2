import type { ChatCompletionRequest } from '@nexus/testkit/llm';
import { afterEach, describe, expect, it } from 'vitest';
import { type AccessCore, arrayMemory, startAccessCore } from '../access/testing/start-access-core.ts';

let setup: AccessCore | undefined;
afterEach(async () => {
  await setup?.close();
  setup = undefined;
});

function codeIn(text: string): string {
  const code = /\*\*([A-Z0-9]{8})\*\*/.exec(text)?.[1];
  if (!code) throw new Error(`no code in: ${text}`);
  return code;
}

function promptOf(setupNow: AccessCore, index: number): string {
  const body = setupNow.model.chatRequests()[index]?.body as ChatCompletionRequest;
  return JSON.stringify(body.messages);
}

describe('commands on the test channel', () => {
  it('/help and /new answer without the model; after /new the earlier turns leave the prompt', async () => {
    setup = await startAccessCore({ directMessagePolicies: { test: 'open' } });
    const { channel, model } = setup;
    await channel.send({ text: 'my secret word is pineapple', senderId: 'ann' });
    await channel.waitForReply('dm:ann');
    await channel.send({ text: '/help', senderId: 'ann' });
    expect(await channel.waitForReply('dm:ann')).toMatch(/\/forget-me: delete everything/);
    await channel.send({ text: 'what was it?', senderId: 'ann' });
    await channel.waitForReply('dm:ann');
    expect(promptOf(setup, 1)).toContain('pineapple');

    await channel.send({ text: '/new', senderId: 'ann' });
    expect(await channel.waitForReply('dm:ann')).toMatch(/Started a new conversation/);
    await channel.send({ text: 'and now?', senderId: 'ann' });
    await channel.waitForReply('dm:ann');
    expect(model.chatRequests()).toHaveLength(3);
    expect(promptOf(setup, 2)).not.toContain('pineapple');
    expect(promptOf(setup, 2)).toContain('and now?');
  });

  it('/new keeps its place in line: a message sent before it still sees the old history', async () => {
    setup = await startAccessCore({ directMessagePolicies: { test: 'open' } });
    const { channel, core } = setup;
    await channel.send({ text: 'remember: blue', senderId: 'ann' });
    await core.whenIdle();
    setup.model.setLatency(50);
    await channel.send({ text: 'which colour?', senderId: 'ann' });
    await channel.send({ text: '/new', senderId: 'ann' });
    await core.whenIdle();
    expect(promptOf(setup, 1)).toContain('remember: blue');
  });

  it('/memories lists what memory holds for the person; /forget-me deletes it after confirmation', async () => {
    const memory = arrayMemory([
      { userId: 'test:ann', content: 'Prefers short answers' },
      { userId: 'test:ann', content: 'Lives in Lisbon' },
      { userId: 'test:bob', content: 'Bob plays chess' },
    ]);
    setup = await startAccessCore({ directMessagePolicies: { test: 'open' }, memory });
    const { channel, model } = setup;
    await channel.send({ text: '/memories', senderId: 'ann' });
    const listed = await channel.waitForReply('dm:ann');
    expect(listed).toContain('1. Prefers short answers\n2. Lives in Lisbon');
    expect(listed).not.toContain('chess');

    await channel.send({ text: '/forget-me confirm', senderId: 'ann' });
    expect(await channel.waitForReply('dm:ann')).toMatch(/nothing to confirm/);
    await channel.send({ text: '/forget_me', senderId: 'ann' });
    expect(await channel.waitForReply('dm:ann')).toMatch(/send \*\*\/forget-me confirm\*\* within 5 minutes/);
    expect(memory.entries).toHaveLength(3);
    await channel.send({ text: '/forget-me confirm', senderId: 'ann' });
    expect(await channel.waitForReply('dm:ann')).toMatch(/- memories: 2\n/);
    expect(memory.entries.map((entry) => entry.userId)).toEqual(['test:bob']);
    await channel.send({ text: '/memories', senderId: 'ann' });
    expect(await channel.waitForReply('dm:ann')).toMatch(/don't remember anything about you/);
    expect(model.chatRequests()).toHaveLength(0);
  });

  it('says so when memory is not configured, or not reachable', async () => {
    setup = await startAccessCore({
      directMessagePolicies: { test: 'open' },
      memory: {
        list: async () => {
          throw new Error('connect ECONNREFUSED');
        },
        delete: async () => ({ deleted: false }),
        reset: async () => ({ deleted: 0 }),
      },
    });
    await setup.channel.send({ text: '/memories', senderId: 'ann' });
    await expect(setup.channel.waitForReply('dm:ann')).rejects.toMatchObject({ code: 'memory_unavailable' });
    await setup.close();
    setup = await startAccessCore({ directMessagePolicies: { test: 'open' } });
    await setup.channel.send({ text: '/memories', senderId: 'ann' });
    expect(await setup.channel.waitForReply('dm:ann')).toMatch(/Memory is not enabled/);
  });
});

describe('/link on the test channels', () => {
  it('links two identities only once the account that issued the code approves; memory and rate limits follow the person', async () => {
    const memory = arrayMemory([{ userId: 'test:ann', content: 'Ann is vegetarian' }]);
    setup = await startAccessCore({ directMessagePolicies: { test: 'open' }, memory });
    const { channel, store, model } = setup;
    const other = { senderId: 'ann-phone', conversationId: 'phone', senderName: 'Ann P.' };

    await channel.send({ text: '/memories', ...other });
    expect(await channel.waitForReply('phone')).toMatch(/don't remember anything/);

    await channel.send({ text: '/link', senderId: 'ann' });
    const code = codeIn(await channel.waitForReply('dm:ann'));
    await channel.send({ text: `/link ${code.toLowerCase().slice(0, 4)}-${code.slice(4)}`, ...other });
    // The entering side is told whose account it joins and confirms first.
    expect(await channel.waitForReply('phone')).toMatch(/made by a test account \(test:ann\)/);
    await channel.send({ text: '/link confirm', ...other });
    // The issuer is told who entered the code, from which channel, on their own conversation.
    const notice = await channel.waitForReply('dm:ann');
    expect(notice).toMatch(/entered your link code from a test account \(Ann P\., test:ann-phone\)/);
    expect(notice).toMatch(/\/link approve/);
    expect(await channel.waitForReply('phone')).toMatch(/asked your test account to approve/);

    // The entering side cannot complete it alone.
    await channel.send({ text: '/link confirm', ...other });
    expect(await channel.waitForReply('phone')).toMatch(/approved on the account that asked/);
    await channel.send({ text: '/link approve', ...other });
    expect(await channel.waitForReply('phone')).toMatch(/No link is waiting/);
    expect(store.identities.find({ channel: 'test', platformId: 'ann-phone' })?.userId).toBe(
      'test:ann-phone',
    );

    await channel.send({ text: '/link approve', senderId: 'ann' });
    expect(await channel.waitForReply('dm:ann')).toMatch(/^Linked\./);
    expect(await channel.waitForReply('phone')).toMatch(/^Linked\./);
    expect(store.identities.find({ channel: 'test', platformId: 'ann-phone' })).toMatchObject({
      userId: 'test:ann',
      homeUserId: 'test:ann-phone',
      displayName: 'Ann P.',
    });

    await channel.send({ text: '/memories', ...other });
    expect(await channel.waitForReply('phone')).toContain('1. Ann is vegetarian');
    await channel.send({ text: 'hello from the phone', ...other });
    await channel.waitForReply('phone');
    await setup.core.whenIdle();
    const [turn] = await setup.sessionStore.history({ conversationKey: 'test:phone', limit: 1 });
    expect(turn).toMatchObject({ userText: 'hello from the phone', userId: 'test:ann' });
    expect(model.chatRequests()).toHaveLength(1);

    // The code was used up.
    await channel.send({ text: `/link ${code}`, senderId: 'someone-else' });
    expect(await channel.waitForReply('dm:someone-else')).toMatch(/not valid or has expired/);

    const unlinked = store.identities.unlink({ channel: 'test', platformId: 'ann-phone' });
    expect(unlinked.userId).toBe('test:ann-phone');
    await channel.send({ text: '/memories', ...other });
    expect(await channel.waitForReply('phone')).toMatch(/don't remember anything/);
  });

  it('a phished code links nothing: the issuer sees who entered it and denies', async () => {
    setup = await startAccessCore({ directMessagePolicies: { test: 'pairing' } });
    const { channel, store } = setup;
    const owner = store.identities.ensure({ channel: 'test', platformId: 'owner' });
    store.identities.approve({ userId: owner.userId, approvedBy: 'owner' });
    await channel.send({ text: '/link', senderId: 'owner' });
    const code = codeIn(await channel.waitForReply('dm:owner'));

    await channel.send({ text: `/link ${code}`, senderId: 'mallory', senderName: 'Support Team' });
    expect(await channel.waitForReply('dm:mallory')).toMatch(/made by a test account/);
    await channel.send({ text: '/link confirm', senderId: 'mallory' });
    expect(await channel.waitForReply('dm:owner')).toMatch(/\(Support Team, test:mallory\)/);
    expect(await channel.waitForReply('dm:mallory')).toMatch(/asked your test account to approve/);
    await channel.send({ text: '/link deny', senderId: 'owner' });
    expect(await channel.waitForReply('dm:owner')).toMatch(/Nothing was linked/);
    await channel.send({ text: '/link approve', senderId: 'owner' });
    expect(await channel.waitForReply('dm:owner')).toMatch(/No link is waiting/);
    expect(store.identities.find({ channel: 'test', platformId: 'mallory' })).toBeUndefined();
    await channel.send({ text: 'let me in', senderId: 'mallory' });
    expect(await channel.waitForReply('dm:mallory')).toMatch(/pairing code/);
  });

  it('links nothing when the approval request cannot reach the issuer', async () => {
    setup = await startAccessCore({
      directMessagePolicies: { test: 'open' },
      notify: async () => {
        throw new Error('the platform refused the message');
      },
    });
    const { channel, store } = setup;
    await channel.send({ text: '/link', senderId: 'ann' });
    const code = codeIn(await channel.waitForReply('dm:ann'));
    await channel.send({ text: `/link ${code}`, senderId: 'ann-phone' });
    await channel.waitForReply('dm:ann-phone');
    await channel.send({ text: '/link confirm', senderId: 'ann-phone' });
    expect(await channel.waitForReply('dm:ann-phone')).toMatch(/could not reach your test account/);
    expect(store.linkCodes.findUnclaimed(code)).toBeUndefined();
    expect(store.linkCodes.awaitingApproval({ channel: 'test', platformId: 'ann' })).toBeUndefined();
    expect(store.identities.find({ channel: 'test', platformId: 'ann-phone' })?.userId).toBe(
      'test:ann-phone',
    );
  });

  it('lets a pending stranger link into an approved person once approved, which approves them as that person', async () => {
    setup = await startAccessCore({ directMessagePolicies: { test: 'pairing' } });
    const { channel, store, model } = setup;
    const owner = store.identities.ensure({ channel: 'test', platformId: 'owner' });
    store.identities.approve({ userId: owner.userId, approvedBy: 'owner' });
    await channel.send({ text: 'hi', senderId: 'owner-laptop' });
    codeIn(await channel.waitForReply('dm:owner-laptop'));

    await channel.send({ text: '/link', senderId: 'owner' });
    const code = codeIn(await channel.waitForReply('dm:owner'));
    await channel.send({ text: `/link ${code}`, senderId: 'owner-laptop' });
    await channel.waitForReply('dm:owner-laptop');
    await channel.send({ text: '/link confirm', senderId: 'owner-laptop' });
    await channel.waitForReply('dm:owner');
    await channel.waitForReply('dm:owner-laptop');
    await channel.send({ text: '/link approve', senderId: 'owner' });
    expect(await channel.waitForReply('dm:owner')).toMatch(/^Linked\./);
    expect(await channel.waitForReply('dm:owner-laptop')).toMatch(/^Linked\./);
    await channel.send({ text: 'now I am in', senderId: 'owner-laptop' });
    expect(await channel.waitForReply('dm:owner-laptop')).toBe('Echo: now I am in');
    expect(model.chatRequests()).toHaveLength(1);
  });
});

describe('wrong link codes', () => {
  it('locks a sender out after a few of 10,000 wrong codes; nothing is linked or approved, the model is never called', async () => {
    setup = await startAccessCore();
    const { channel, store, model, core } = setup;
    const owner = store.identities.ensure({ channel: 'test', platformId: 'owner' });
    store.identities.approve({ userId: owner.userId, approvedBy: 'owner' });
    await channel.send({ text: '/link', senderId: 'owner' });
    const realCode = codeIn(await channel.waitForReply('dm:owner'));

    const statuses = new Map<string, number>();
    for (let index = 0; index < 10_000; index++) {
      const guess = index.toString(36).toUpperCase().padStart(8, 'Z');
      const result = await channel.send({ text: `/link ${guess}`, senderId: 'attacker' });
      statuses.set(result.status, (statuses.get(result.status) ?? 0) + 1);
    }
    await core.whenIdle();
    const replies = channel.replies('dm:attacker');
    expect(replies.filter((text) => /not valid or has expired/.test(text))).toHaveLength(4);
    expect(replies.filter((text) => /Too many wrong codes/.test(text))).toHaveLength(1);
    expect(replies).toHaveLength(5);
    expect(statuses.get('accepted')).toBe(5);
    expect(statuses.get('rejected')).toBe(9_995);

    // Even the right code is refused during the lockout.
    const right = await channel.send({ text: `/link ${realCode}`, senderId: 'attacker' });
    expect(right).toMatchObject({ status: 'rejected', code: 'rate_limited' });
    expect(store.linkCodes.findUnclaimed(realCode)).toBeDefined();
    expect(store.identities.find({ channel: 'test', platformId: 'attacker' })).toBeUndefined();
    expect(store.identities.listPeople().map((person) => person.userId)).toEqual(['test:owner']);
    expect(store.pairing.list()).toEqual([]);
    expect(model.chatRequests()).toHaveLength(0);
  }, 30_000);

  it('throwaway accounts flooding wrong codes cannot lock out a person entering their own code', async () => {
    setup = await startAccessCore({ directMessagePolicies: { test: 'pairing' } });
    const { channel, store, core } = setup;
    const owner = store.identities.ensure({ channel: 'test', platformId: 'owner' });
    store.identities.approve({ userId: owner.userId, approvedBy: 'owner' });
    await channel.send({ text: '/link', senderId: 'owner' });
    const realCode = codeIn(await channel.waitForReply('dm:owner'));

    // 60 throwaway accounts, one wrong code each: past the overall limit of 50 an hour.
    for (let index = 0; index < 60; index++) {
      await channel.send({
        text: `/link ZZZZ${String(index).padStart(4, '2')}`,
        senderId: `throwaway-${index}`,
      });
    }
    await core.whenIdle();
    expect(store.codeAttempts.lockedUntil('*')).toBeDefined();
    // During the flood a sender that already missed once gets no further try…
    const again = await channel.send({ text: '/link ZZZZ9999', senderId: 'throwaway-59' });
    expect(again).toMatchObject({ status: 'rejected', code: 'rate_limited' });
    // …a fresh one gets exactly one…
    await channel.send({ text: '/link ZZZZ8888', senderId: 'fresh-throwaway' });
    expect(await channel.waitForReply('dm:fresh-throwaway')).toMatch(/Too many wrong codes/);
    // …and the person typing their own code correctly still gets through to the approval step.
    await channel.send({ text: `/link ${realCode}`, senderId: 'owner-phone' });
    expect(await channel.waitForReply('dm:owner-phone')).toMatch(/made by a test account/);
    await channel.send({ text: '/link confirm', senderId: 'owner-phone' });
    expect(await channel.waitForReply('dm:owner')).toMatch(/entered your link code/);
    expect(await channel.waitForReply('dm:owner-phone')).toMatch(/asked your test account to approve/);
    await channel.send({ text: '/link approve', senderId: 'owner' });
    expect(await channel.waitForReply('dm:owner')).toMatch(/^Linked\./);
    expect(store.identities.find({ channel: 'test', platformId: 'owner-phone' })?.userId).toBe('test:owner');
  }, 30_000);
});
