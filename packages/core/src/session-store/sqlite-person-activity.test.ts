import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterEach, describe, expect, it } from 'vitest';
import { createSqliteSessionStore } from './sqlite-session-store.ts';

const directories: string[] = [];
afterEach(() => {
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
});
function temporaryFile(): string {
  const directory = mkdtempSync(join(tmpdir(), 'nexus-person-activity-'));
  directories.push(directory);
  return join(directory, 'sessions.db');
}
const turnOf = (userId: string, intentId: string, createdAt: number) => ({
  channel: 'web',
  intentId,
  conversationKey: `web:${userId}`,
  userId,
  userText: 'hi',
  replyText: 'hello',
  outcome: 'ok' as const,
  createdAt,
});

describe("the session store's record of each person's last activity", () => {
  it('answers when the person was last active before, never moves back in time, and is forgotten with them', async () => {
    const store = createSqliteSessionStore({ path: ':memory:' });
    try {
      expect(await store.markActive?.({ userId: 'ada', at: 1_000 })).toBeUndefined();
      expect(await store.markActive?.({ userId: 'ada', at: 5_000 })).toBe(1_000);
      // A replayed turn from earlier leaves the latest activity as it was.
      expect(await store.markActive?.({ userId: 'ada', at: 2_000 })).toBe(5_000);
      expect(await store.markActive?.({ userId: 'ada', at: 6_000 })).toBe(5_000);
      expect(await store.markActive?.({ userId: 'bob', at: 6_000 })).toBeUndefined();
      await store.forgetPeople?.({ userIds: ['ada'] });
      expect(await store.markActive?.({ userId: 'ada', at: 7_000 })).toBeUndefined();
      expect(await store.markActive?.({ userId: 'bob', at: 7_000 })).toBe(6_000);
    } finally {
      await store.close();
    }
  });

  it("writes a busy person's activity at most once a minute, answers exactly meanwhile, and keeps it over a restart", async () => {
    const path = temporaryFile();
    const store = createSqliteSessionStore({ path });
    const observer = new DatabaseSync(path);
    const version = () =>
      (observer.prepare('PRAGMA data_version').get() as { data_version: number }).data_version;
    const inFile = (userId: string) =>
      (
        observer.prepare('SELECT last_active_at FROM person_activity WHERE user_id = ?').get(userId) as
          | { last_active_at: number }
          | undefined
      )?.last_active_at;
    expect(await store.markActive?.({ userId: 'ada', at: 100_000 })).toBeUndefined();
    const written = version();
    // Within the minute: exact answers, no commit.
    expect(await store.markActive?.({ userId: 'ada', at: 110_000 })).toBe(100_000);
    expect(await store.markActive?.({ userId: 'ada', at: 105_000 })).toBe(110_000);
    expect(await store.markActive?.({ userId: 'ada', at: 150_000 })).toBe(110_000);
    expect(version()).toBe(written);
    expect(inFile('ada')).toBe(100_000);
    // A minute after the last write: written again.
    expect(await store.markActive?.({ userId: 'ada', at: 170_000 })).toBe(150_000);
    expect(inFile('ada')).toBe(170_000);
    expect(await store.markActive?.({ userId: 'ada', at: 180_000 })).toBe(170_000);
    await store.close();
    // Closing wrote what the file did not hold yet.
    expect(inFile('ada')).toBe(180_000);

    const reopened = createSqliteSessionStore({ path });
    try {
      expect(await reopened.markActive?.({ userId: 'ada', at: 190_000 })).toBe(180_000);
      await new Promise((resolve) => setImmediate(resolve));
      // Another connection (`nexus users forget`) removes the record: the next turn reads the file.
      observer.prepare('DELETE FROM person_activity WHERE user_id = ?').run('ada');
      await new Promise((resolve) => setImmediate(resolve));
      expect(await reopened.markActive?.({ userId: 'ada', at: 200_000 })).toBeUndefined();
      expect(inFile('ada')).toBe(200_000);
    } finally {
      observer.close();
      await reopened.close();
    }
  });

  it('is filled from the stored turns when a store from before it is opened', async () => {
    const path = temporaryFile();
    const before = createSqliteSessionStore({ path });
    await before.appendTurn(turnOf('ada', 'a1', 1_000));
    await before.appendTurn(turnOf('ada', 'a2', 3_000));
    await before.appendTurn(turnOf('bob', 'b1', 2_000));
    await before.close();
    // Back to schema 3, as a store written before this version is.
    const raw = new DatabaseSync(path);
    raw.exec(
      'DROP TABLE conversation_list; DROP TABLE reply_versions; DROP TABLE person_activity; ALTER TABLE turns DROP COLUMN reply_id; PRAGMA user_version = 3',
    );
    raw.close();

    const upgraded = createSqliteSessionStore({ path });
    try {
      expect(await upgraded.markActive?.({ userId: 'ada', at: 9_000 })).toBe(3_000);
      expect(await upgraded.markActive?.({ userId: 'bob', at: 9_000 })).toBe(2_000);
    } finally {
      await upgraded.close();
    }
  });
});
