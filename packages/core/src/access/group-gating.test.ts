import { afterEach, describe, expect, it } from 'vitest';
import { type AccessCore, arrayMemory, startAccessCore } from './testing/start-access-core.ts';

let setup: AccessCore | undefined;
afterEach(async () => {
  await setup?.close();
  setup = undefined;
});

describe('group mention gating on the test channel', () => {
  it('answers in an allowlisted group only when mentioned, replied to or given a command', async () => {
    const memory = arrayMemory([
      { userId: 'test:ann', content: 'Ann likes tea' },
      { userId: 'group:test:team', content: 'Meets on Fridays' },
    ]);
    setup = await startAccessCore({ groupAllowlist: ['test:team'], memory });
    const { channel, model, core } = setup;
    const group = { kind: 'group' as const, conversationId: 'team', senderId: 'ann' };

    expect(await channel.send({ ...group, text: 'chatting among ourselves' })).toEqual({
      status: 'accepted',
    });
    expect(await channel.send({ ...group, text: '/help@SomeOtherBot' })).toEqual({ status: 'accepted' });
    await core.whenIdle();
    expect(channel.deliveries('team')).toEqual([]);
    expect(model.chatRequests()).toHaveLength(0);

    await channel.send({ ...group, text: '@nexus what time is it?', mentionsAssistant: true });
    expect(await channel.waitForReply('team')).toBe('Echo: @nexus what time is it?');
    await channel.send({
      ...group,
      text: 'and tomorrow?',
      mentionsAssistant: true,
      replyTo: 'bot-message-1',
    });
    expect(await channel.waitForReply('team')).toBe('Echo: and tomorrow?');
    expect(model.chatRequests()).toHaveLength(2);

    await channel.send({ ...group, text: '/help' });
    expect(await channel.waitForReply('team')).toMatch(/work in a direct message/);
    // Personal answers never go to a group: /memories there lists the group's memory only.
    await channel.send({ ...group, text: '/memories' });
    const listed = await channel.waitForReply('team');
    expect(listed).toContain('1. Meets on Fridays');
    expect(listed).not.toContain('Ann likes tea');
    await channel.send({ ...group, text: '/forget-me' });
    expect(await channel.waitForReply('team')).toBe(
      'For your privacy, send /forget-me to me in a direct message.',
    );
    expect(model.chatRequests()).toHaveLength(2);
  });

  it('stays out of groups that are not allowlisted, even for people approved in direct messages', async () => {
    setup = await startAccessCore({ groupAllowlist: ['test:team'] });
    const { channel, model, store, core } = setup;
    const person = store.identities.ensure({ channel: 'test', platformId: 'ann' });
    store.identities.approve({ userId: person.userId, approvedBy: 'pairing' });

    await channel.send({ text: 'direct works', senderId: 'ann' });
    expect(await channel.waitForReply('dm:ann')).toBe('Echo: direct works');

    const other = { kind: 'group' as const, conversationId: 'random-group', senderId: 'ann' };
    expect(await channel.send({ ...other, text: '@nexus hi', mentionsAssistant: true })).toMatchObject({
      status: 'rejected',
      code: 'unauthorized',
    });
    expect(await channel.send({ ...other, text: 'unaddressed' })).toEqual({ status: 'accepted' });
    await core.whenIdle();
    expect(channel.deliveries('random-group')).toEqual([]);
    expect(model.chatRequests()).toHaveLength(1);
  });

  it('answers any member of an allowlisted group (no pairing in groups) and makes them a person', async () => {
    setup = await startAccessCore({ groupAllowlist: ['test:*'] });
    const { channel, model, store } = setup;
    await channel.send({
      kind: 'thread',
      conversationId: 'topic-7',
      senderId: 'guest',
      text: 'hey bot',
      mentionsAssistant: true,
    });
    expect(await channel.waitForReply('topic-7')).toBe('Echo: hey bot');
    expect(model.chatRequests()).toHaveLength(1);
    expect(store.identities.find({ channel: 'test', platformId: 'guest' })).toMatchObject({
      userId: 'test:guest',
      approved: false,
    });
    expect(store.pairing.list()).toEqual([]);
  });
});
