import { silentLogger } from '@nexus/protocol';
import { afterEach, describe, expect, it } from 'vitest';
import { type AccessCore, startAccessCore } from './testing/start-access-core.ts';

let setup: AccessCore | undefined;
afterEach(async () => {
  await setup?.close();
  setup = undefined;
});

async function start(options: Parameters<typeof startAccessCore>[0] = {}): Promise<AccessCore> {
  setup = await startAccessCore(options);
  return setup;
}

function codeIn(text: string): string {
  const code = /\*\*([A-Z0-9]{8})\*\*/.exec(text)?.[1];
  if (!code) throw new Error(`no code in: ${text}`);
  return code;
}

describe('pairing policy (the default) on the test channel', () => {
  it('gives an unknown sender a code and nothing else until the owner approves it', async () => {
    const { channel, model, store, core } = await start();
    expect(await channel.send({ text: 'hello?', senderId: 'stranger' })).toEqual({ status: 'accepted' });
    const notice = await channel.waitForReply('dm:stranger');
    const code = codeIn(notice);
    expect(notice).toContain('valid for 60 minutes');
    expect(store.pairing.list().map((request) => [request.code, request.platformId])).toEqual([
      [code, 'stranger'],
    ]);

    // Writing again within the notice interval: refused quietly, no second bot message, same request.
    const again = await channel.send({ text: 'please answer', senderId: 'stranger' });
    expect(again).toMatchObject({ status: 'rejected', code: 'unauthorized' });
    await core.whenIdle();
    expect(channel.replies('dm:stranger')).toHaveLength(1);
    expect(store.pairing.list()).toHaveLength(1);
    expect(model.chatRequests()).toHaveLength(0);

    const { identity } = store.pairing.approve({ code: code.toLowerCase() });
    expect(identity).toMatchObject({ userId: 'test:stranger', approved: true });
    await channel.send({ text: 'now?', senderId: 'stranger' });
    expect(await channel.waitForReply('dm:stranger')).toBe('Echo: now?');
    expect(model.chatRequests()).toHaveLength(1);
    expect(store.pairing.list()).toHaveLength(0);
  });

  it('three throwaway accounts cannot turn a newcomer away and get 3 codes a day each; codes expire after an hour', async () => {
    const { channel, model, store, advance } = await start();
    for (const sender of ['t1', 't2', 't3']) await channel.send({ text: 'hi', senderId: sender });
    for (const sender of ['t1', 't2', 't3']) codeIn(await channel.waitForReply(`dm:${sender}`));
    await channel.send({ text: 'hello, I am new', senderId: 'newcomer' });
    const newcomerCode = codeIn(await channel.waitForReply('dm:newcomer'));

    // The throwaways ask again each time their codes expire, all day: 3 codes each, then refused.
    for (let hour = 0; hour < 23; hour++) {
      advance(60 * 60_000 + 1);
      for (const sender of ['t1', 't2', 't3']) await channel.send({ text: 'hi', senderId: sender });
    }
    await setup?.core.whenIdle();
    const given = (sender: string) =>
      store.pairing.countRequestsSince({ channel: 'test', platformId: sender, since: 0 });
    expect(['t1', 't2', 't3'].map(given)).toEqual([3, 3, 3]);
    expect(channel.replies('dm:t1').at(-1)).toMatch(/asked for access several times today/);

    expect(() => store.pairing.approve({ code: newcomerCode })).toThrow(/expired/);
    await channel.send({ text: 'hi again', senderId: 'newcomer' });
    const fresh = codeIn(await channel.waitForReply('dm:newcomer'));
    expect(store.pairing.list().map((request) => request.code)).toEqual([fresh]);
    expect(model.chatRequests()).toHaveLength(0);
  });

  it('a full channel displaces its oldest request for a newcomer and warns the owner', async () => {
    const warnings: string[] = [];
    const logger = {
      ...silentLogger,
      warn: (_: object, message?: string) => void warnings.push(message ?? ''),
    };
    const { channel, store, advance } = await start({ maxPendingPairingPerChannel: 3, logger });
    for (const sender of ['t1', 't2', 't3']) {
      await channel.send({ text: 'hi', senderId: sender });
      advance(1000);
    }
    const oldest = codeIn(await channel.waitForReply('dm:t1'));
    await channel.send({ text: 'hello, I am new', senderId: 'newcomer' });
    const newcomerCode = codeIn(await channel.waitForReply('dm:newcomer'));
    expect(() => store.pairing.approve({ code: oldest })).toThrow(/expired/);
    expect(store.pairing.list().map((request) => request.platformId)).toEqual(['t2', 't3', 'newcomer']);
    expect(warnings).toEqual([expect.stringMatching(/oldest was displaced.*nexus pairing list/)]);
    expect(store.pairing.approve({ code: newcomerCode }).identity.approved).toBe(true);
  });

  it('ignores a sender the owner rejected, without issuing new codes', async () => {
    const { channel, model, store, core } = await start();
    await channel.send({ text: 'hi', senderId: 'spammer' });
    const code = codeIn(await channel.waitForReply('dm:spammer'));
    store.pairing.reject({ code });
    const result = await channel.send({ text: 'hi hi', senderId: 'spammer' });
    expect(result).toMatchObject({ status: 'rejected', code: 'unauthorized' });
    await core.whenIdle();
    expect(channel.replies('dm:spammer')).toHaveLength(1);
    expect(store.pairing.list()).toEqual([]);
    expect(model.chatRequests()).toHaveLength(0);
  });
});

describe('allowlist policy on the test channel', () => {
  it('answers listed identities and approved people; refuses everyone else silently', async () => {
    const { channel, model, store, core } = await start({
      directMessagePolicies: { test: 'allowlist' },
      allowlist: ['test:alice'],
    });
    await channel.send({ text: 'from alice', senderId: 'alice' });
    expect(await channel.waitForReply('dm:alice')).toBe('Echo: from alice');

    const refused = await channel.send({ text: 'from mallory', senderId: 'mallory' });
    expect(refused).toMatchObject({ status: 'rejected', code: 'unauthorized' });
    await core.whenIdle();
    expect(channel.deliveries('dm:mallory')).toEqual([]);
    expect(store.pairing.list()).toEqual([]);
    expect(model.chatRequests()).toHaveLength(1);

    const bob = store.identities.ensure({ channel: 'test', platformId: 'bob' });
    store.identities.approve({ userId: bob.userId, approvedBy: 'owner' });
    await channel.send({ text: 'from bob', senderId: 'bob' });
    expect(await channel.waitForReply('dm:bob')).toBe('Echo: from bob');
    expect(model.chatRequests()).toHaveLength(2);
  });
});

describe('open policy on the test channel', () => {
  it('answers anyone and makes each new sender a person', async () => {
    const { channel, model, store } = await start({ directMessagePolicies: { test: 'open' } });
    await channel.send({ text: 'first contact', senderId: 'newcomer', senderName: 'Nia' });
    expect(await channel.waitForReply('dm:newcomer')).toBe('Echo: first contact');
    expect(model.chatRequests()).toHaveLength(1);
    expect(store.identities.find({ channel: 'test', platformId: 'newcomer' })).toMatchObject({
      userId: 'test:newcomer',
      displayName: 'Nia',
      approved: false,
    });
  });
});

describe('disabled policy on the test channel', () => {
  it('refuses every direct message, approved people included, without a model call', async () => {
    const { channel, model, store, core } = await start({ directMessagePolicies: { test: 'disabled' } });
    const person = store.identities.ensure({ channel: 'test', platformId: 'owner' });
    store.identities.approve({ userId: person.userId, approvedBy: 'owner' });
    for (const sender of ['owner', 'someone']) {
      expect(await channel.send({ text: 'hello', senderId: sender })).toMatchObject({
        status: 'rejected',
        code: 'unauthorized',
      });
    }
    expect(await channel.send({ text: '/help', senderId: 'owner' })).toMatchObject({ status: 'rejected' });
    await core.whenIdle();
    expect(channel.deliveries('dm:owner')).toEqual([]);
    expect(model.chatRequests()).toHaveLength(0);
  });
});
