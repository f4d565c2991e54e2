import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseCommand } from '../commands/parse-command.ts';
import { parseIdentityKey } from '../identity/identity-key.ts';
import { type AccessStore, createAccessStore } from './access-store.ts';
import { createRateLimiter } from './rate-limiter.ts';

const stores: AccessStore[] = [];
const directories: string[] = [];
afterEach(() => {
  for (const store of stores.splice(0)) store.close();
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
});

function open(path = ':memory:', now = () => 1_000_000): AccessStore {
  const store = createAccessStore({ path, now });
  stores.push(store);
  return store;
}

describe('identities', () => {
  it('links a whole person into another and returns each identity home on unlink', () => {
    const store = open();
    const a = store.identities.ensure({ channel: 'web', platformId: 'laptop' });
    store.identities.ensure({ channel: 'telegram', platformId: '42' });
    store.identities.ensure({ channel: 'discord', platformId: '7' });
    store.identities.link({ identity: { channel: 'discord', platformId: '7' }, toUserId: 'telegram:42' });
    store.identities.link({ identity: { channel: 'telegram', platformId: '42' }, toUserId: a.userId });

    const people = store.identities.listPeople();
    expect(
      people.map((person) => [person.userId, person.identities.map((identity) => identity.channel)]),
    ).toEqual([['web:laptop', ['discord', 'telegram', 'web']]]);
    expect(() => store.identities.unlink({ channel: 'web', platformId: 'laptop' })).toThrow(
      /started from; unlink the others instead \(discord:7, telegram:42\)/,
    );
    expect(store.identities.unlink({ channel: 'discord', platformId: '7' }).userId).toBe('discord:7');
    expect(() =>
      store.identities.link({ identity: { channel: 'telegram', platformId: '42' }, toUserId: 'web:laptop' }),
    ).toThrow(/already belongs/);
    expect(() => store.identities.unlink({ channel: 'slack', platformId: '1' })).toThrow(
      /No identity slack:1/,
    );
  });

  it('approval belongs to the person: linked identities share it, unlinked ones lose it', () => {
    const store = open();
    const owner = store.identities.ensure({ channel: 'telegram', platformId: '1' });
    store.identities.approve({ userId: owner.userId, approvedBy: 'owner' });
    store.identities.ensure({ channel: 'discord', platformId: '2' });
    const linked = store.identities.link({
      identity: { channel: 'discord', platformId: '2' },
      toUserId: owner.userId,
    });
    expect(linked.approved).toBe(true);
    expect(store.identities.unlink({ channel: 'discord', platformId: '2' }).approved).toBe(false);

    // Linking an approved account into an unapproved person carries the approval over.
    const phone = store.identities.ensure({ channel: 'web', platformId: 'phone' });
    expect(phone.approved).toBe(false);
    store.identities.link({ identity: { channel: 'telegram', platformId: '1' }, toUserId: phone.userId });
    expect(store.identities.find({ channel: 'web', platformId: 'phone' })?.approved).toBe(true);
    expect(store.identities.find({ channel: 'telegram', platformId: '1' })?.approved).toBe(true);
  });

  it('is shared by two connections to one file, as the CLI and the gateway share it', () => {
    const directory = mkdtempSync(join(tmpdir(), 'nexus-access-'));
    directories.push(directory);
    const gateway = open(join(directory, 'access.sqlite'));
    const cli = open(join(directory, 'access.sqlite'));
    const request = gateway.pairing.create({
      channel: 'telegram',
      platformId: '9',
      code: 'ABCD2345',
      ttlMs: 60_000,
    });
    expect(cli.pairing.list().map((pending) => pending.code)).toEqual([request.code]);
    cli.pairing.approve({ code: 'abcd-2345' });
    expect(gateway.identities.find({ channel: 'telegram', platformId: '9' })?.approved).toBe(true);
    expect(() => cli.pairing.approve({ code: 'ABCD2345' })).toThrow(/No pending pairing request/);
  });
});

describe('code attempts', () => {
  it('locks after the limit and allows a full window again after the lockout', () => {
    let clock = 0;
    const store = open(':memory:', () => clock);
    const limits = { maxFailures: 3, windowMs: 1000, lockoutMs: 5000 };
    expect(store.codeAttempts.recordFailure('x', limits)).toEqual({ failures: 1 });
    expect(store.codeAttempts.recordFailure('x', limits)).toEqual({ failures: 2 });
    expect(store.codeAttempts.recordFailure('x', limits)).toEqual({ failures: 3, lockedUntil: 5000 });
    expect(store.codeAttempts.lockedUntil('x')).toBe(5000);
    expect(store.codeAttempts.lockedUntil('y')).toBeUndefined();
    clock = 5000;
    expect(store.codeAttempts.lockedUntil('x')).toBeUndefined();
    expect(store.codeAttempts.recordFailure('x', limits)).toEqual({ failures: 1 });
  });
});

describe('parseCommand', () => {
  it('recognises the commands, their Telegram spellings and addressing, and nothing else', () => {
    expect(parseCommand('/help')).toEqual({ name: 'help', argument: '' });
    expect(parseCommand('  /LINK  ab12-cd34 ')).toEqual({ name: 'link', argument: 'ab12-cd34' });
    expect(parseCommand('/forget_me@NexusBot confirm')).toEqual({
      name: 'forget-me',
      argument: 'confirm',
      addressedTo: 'NexusBot',
    });
    expect(parseCommand('/shrug')).toBeUndefined();
    expect(parseCommand('please /help')).toBeUndefined();
    expect(parseIdentityKey('whatsapp:123@s.whatsapp.net')).toEqual({
      channel: 'whatsapp',
      platformId: '123@s.whatsapp.net',
    });
    expect(() => parseIdentityKey('telegram')).toThrow(/<channel>:<platform id>/);
  });
});

describe('rate limiter', () => {
  it('forgets full buckets first when it tracks too many people', () => {
    let clock = 0;
    const limiter = createRateLimiter({
      person: { burst: 1, perMinute: 60 },
      global: { burst: 1000, perMinute: 1000 },
      now: () => clock,
      maxPeople: 2,
    });
    expect(limiter.take('a').allowed).toBe(true);
    expect(limiter.take('a')).toEqual({ allowed: false, limit: 'person', retryAfterMs: 1000 });
    clock = 2000;
    expect(limiter.take('b').allowed).toBe(true);
    expect(limiter.take('c').allowed).toBe(true);
    expect(limiter.take('b')).toMatchObject({ allowed: false, limit: 'person' });
  });
});
