import { describe, expect, it } from 'vitest';
import { createAccessStore } from '../access/access-store.ts';
import { arrayMemory } from '../access/testing/start-access-core.ts';
import type { PersonEraser } from '../identity/person-erasers.ts';
import { forgetPerson } from './forget-person.ts';

function personWithTwoAccounts() {
  const store = createAccessStore({ path: ':memory:' });
  store.identities.ensure({ channel: 'test', platformId: 'ann', displayName: 'Ann' });
  store.identities.ensure({ channel: 'test', platformId: 'ann-phone', displayName: 'Ann P.' });
  store.identities.approve({ userId: 'test:ann', approvedBy: 'owner' });
  store.identities.link({ identity: { channel: 'test', platformId: 'ann-phone' }, toUserId: 'test:ann' });
  store.linkCodes.issue({
    userId: 'test:ann',
    issuedBy: { channel: 'test', platformId: 'ann' },
    issuedIn: {
      channel: 'test',
      conversationId: 'dm:ann',
      kind: 'direct',
      intentId: 'i',
      userId: 'test:ann',
      senderPlatformId: 'ann',
    },
    code: 'ABCD2345',
    ttlMs: 60_000,
  });
  store.pairing.create({ channel: 'test', platformId: 'ann-phone', code: 'PAIR2345', ttlMs: 60_000 });
  return store;
}

describe('forgetPerson', () => {
  it('erases every id of the person, waits out running jobs and resets memory again, then drops links and records', async () => {
    const store = personWithTwoAccounts();
    const memory = arrayMemory([
      { userId: 'test:ann', content: 'likes tea' },
      { userId: 'test:ann-phone', content: 'said before linking' },
      { userId: 'test:bob', content: 'not hers' },
    ]);
    const seen: string[][] = [];
    const jobs: PersonEraser = {
      kind: 'memory jobs',
      async erase(target) {
        seen.push([...target.userIds]);
        // An extraction that was already running writes its memory just after the purge.
        setTimeout(() => memory.entries.push({ userId: 'test:ann', content: 'late extraction' }), 20);
        return { count: 2, running: 1 };
      },
    };
    const report = await forgetPerson({ store, memory, erasers: [jobs], userId: 'test:ann', settleMs: 100 });

    expect(seen).toEqual([['test:ann', 'test:ann-phone']]);
    expect(report.removed).toEqual([
      { kind: 'memories', count: 3 },
      { kind: 'memory jobs', count: 2 },
      { kind: 'account records', count: 3 },
    ]);
    expect(memory.entries).toEqual([expect.objectContaining({ userId: 'test:bob', content: 'not hers' })]);
    expect(store.identities.find({ channel: 'test', platformId: 'ann-phone' })).toMatchObject({
      userId: 'test:ann-phone',
      approved: true,
    });
    expect(store.identities.find({ channel: 'test', platformId: 'ann' })?.displayName).toBeUndefined();
    expect(store.linkCodes.findUnclaimed('ABCD2345')).toBeUndefined();
    expect(store.pairing.pendingFor({ channel: 'test', platformId: 'ann-phone' })).toBeUndefined();
    store.close();
  });

  it('keeps the account records when a store cannot be reached, so a retry still finds every account', async () => {
    const store = personWithTwoAccounts();
    const broken: PersonEraser = {
      kind: 'conversation turns',
      erase: async () => {
        throw new Error('disk I/O error');
      },
    };
    await expect(
      forgetPerson({ store, memory: arrayMemory([]), erasers: [broken], userId: 'test:ann' }),
    ).rejects.toMatchObject({
      code: 'memory_unavailable',
      message: expect.stringMatching(/conversation turns/),
    });
    expect(store.identities.find({ channel: 'test', platformId: 'ann-phone' })?.userId).toBe('test:ann');
    expect(store.linkCodes.findUnclaimed('ABCD2345')).toBeDefined();
    store.close();
  });
});
