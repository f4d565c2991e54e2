import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type AccessStore, createAccessStore } from '../access/access-store.ts';

// The identity store keeps identities it has read (identity-cache.ts); these check that every
// way an identity changes is seen by the next `find`, whichever connection wrote it.
const stores: AccessStore[] = [];
const directories: string[] = [];
afterEach(() => {
  for (const store of stores.splice(0)) store.close();
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
});

function open(path: string): AccessStore {
  const store = createAccessStore({ path, now: () => 1_000_000 });
  stores.push(store);
  return store;
}

function sharedFile(): string {
  const directory = mkdtempSync(join(tmpdir(), 'nexus-identity-cache-'));
  directories.push(directory);
  return join(directory, 'access.db');
}

/** The next pass of the event loop, where another connection's commit is seen. */
const nextPass = () => new Promise((resolve) => setImmediate(resolve));

const laptop = { channel: 'web', platformId: 'laptop' };
const phone = { channel: 'telegram', platformId: '42' };

describe('identities kept in memory', () => {
  it('sees its own approvals, links, unlinks and forgetting at once', () => {
    const store = open(':memory:');
    expect(store.identities.find(laptop)).toBeUndefined();
    // Created after a find that kept "unknown": the next find sees it.
    const created = store.identities.ensure(laptop);
    expect(store.identities.find(laptop)).toEqual(created);
    expect(store.identities.find(laptop)?.approved).toBe(false);
    store.identities.approve({ userId: created.userId, approvedBy: 'owner' });
    expect(store.identities.find(laptop)?.approved).toBe(true);

    store.identities.ensure({ ...phone, displayName: 'Ana' });
    expect(store.identities.find(phone)?.userId).toBe('telegram:42');
    store.identities.link({ identity: phone, toUserId: 'web:laptop' });
    expect(store.identities.find(phone)).toMatchObject({ userId: 'web:laptop', approved: true });
    store.identities.unlink(phone);
    expect(store.identities.find(phone)?.userId).toBe('telegram:42');

    store.identities.link({ identity: phone, toUserId: 'web:laptop' });
    expect(store.identities.find(phone)?.displayName).toBe('Ana');
    store.personRecords.forget({ userIds: ['web:laptop'], identities: [laptop, phone] });
    const forgotten = store.identities.find(phone);
    expect(forgotten?.userId).toBe('telegram:42');
    expect(forgotten?.displayName).toBeUndefined();
  });

  it('keeps nothing a rolled-back transaction wrote', () => {
    const store = open(':memory:');
    store.identities.ensure(laptop);
    store.identities.ensure(phone);
    // link reads inside its transaction, then fails: the identity is unchanged afterwards.
    expect(() => store.identities.link({ identity: phone, toUserId: 'nobody:1' })).toThrow(/No person/);
    expect(store.identities.find(phone)?.userId).toBe('telegram:42');
  });

  it("sees another connection's commit (the owner's CLI) from the next pass of the event loop", async () => {
    const path = sharedFile();
    const gateway = open(path);
    const cli = open(path);
    gateway.identities.ensure(laptop);
    expect(gateway.identities.find(laptop)?.approved).toBe(false);
    await nextPass();

    cli.identities.approve({ userId: 'web:laptop', approvedBy: 'owner' });
    await nextPass();
    expect(gateway.identities.find(laptop)?.approved).toBe(true);

    cli.identities.ensure(phone);
    cli.identities.link({ identity: phone, toUserId: 'web:laptop' });
    await nextPass();
    expect(gateway.identities.find(phone)?.userId).toBe('web:laptop');

    cli.personRecords.forget({ userIds: ['web:laptop'], identities: [laptop, phone] });
    await nextPass();
    expect(gateway.identities.find(phone)?.userId).toBe('telegram:42');
  });

  it('hands out identities that cannot be changed in place', () => {
    const store = open(':memory:');
    store.identities.ensure(laptop);
    const found = store.identities.find(laptop) as { approved: boolean };
    expect(() => {
      found.approved = true;
    }).toThrow(TypeError);
    expect(store.identities.find(laptop)?.approved).toBe(false);
  });
});
