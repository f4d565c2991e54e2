import { compilesOf } from '@nexus/sqlite-kit/testing';
import { describe, expect, it } from 'vitest';
import { openAccessDatabase } from './access-database.ts';
import { createIdentityStore } from './identity-store.ts';

describe('identity store statements', () => {
  it('compiles its identity reads once, not on every run, and reads the same rows as `= ?`', () => {
    const database = openAccessDatabase({ path: ':memory:' });
    const store = createIdentityStore(database, () => 1_000);
    const ada = store.ensure({ channel: 'telegram', platformId: '1', displayName: 'Ada' });
    store.ensure({ channel: 'web', platformId: 'ada' });
    store.link({ identity: { channel: 'web', platformId: 'ada' }, toUserId: ada.userId });
    store.approve({ userId: ada.userId, approvedBy: 'owner' });
    // Inside a transaction `find` reads the file each time, not its cache.
    const reads = () => {
      database.exec('BEGIN');
      try {
        for (let run = 0; run < 5; run += 1) {
          store.find({ channel: 'telegram', platformId: '1' });
          store.find({ channel: 'web', platformId: 'nobody' });
          store.person(ada.userId);
        }
      } finally {
        database.exec('COMMIT');
      }
    };
    expect(compilesOf(database, reads)).toBe(0);

    const columns = `i.channel, i.platform_id, i.person_id, i.home_person_id, i.display_name, i.created_at, p.approved_at
      FROM identities i JOIN people p ON p.id = i.person_id`;
    const bound = (sql: string, ...values: string[]) => database.prepare(sql).all(...values);
    expect(bound(`SELECT ${columns} WHERE i.channel = ? AND i.platform_id = ?`, 'telegram', '1')).toEqual([
      {
        channel: 'telegram',
        platform_id: '1',
        person_id: ada.userId,
        home_person_id: ada.userId,
        display_name: 'Ada',
        created_at: 1_000,
        approved_at: 1_000,
      },
    ]);
    expect(store.find({ channel: 'telegram', platformId: '1' })).toMatchObject({
      userId: ada.userId,
      approved: true,
    });
    const ofPerson = bound(
      `SELECT ${columns} WHERE i.person_id = ? ORDER BY i.created_at, i.channel, i.platform_id`,
      ada.userId,
    ).map((row) => `${row.channel}:${row.platform_id}`);
    expect(store.person(ada.userId)?.identities.map((one) => `${one.channel}:${one.platformId}`)).toEqual(
      ofPerson,
    );
    expect(ofPerson).toEqual(['telegram:1', 'web:ada']);
    database.close();
  });
});
