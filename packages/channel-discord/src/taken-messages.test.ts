import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DatabaseSync } from 'node:sqlite';
import type { IntentInput } from '@nexus/protocol';
import { inTransaction, openSqliteDatabase } from '@nexus/sqlite-kit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { channelCursorSchema, openDiscordChannelCursor } from './discord-channel-cursor.ts';
import { openDiscordDatabase } from './open-discord-database.ts';
import { MAX_TAKEN_MESSAGES, TAKEN_MESSAGE_MAX_AGE_MS, TakenMessages } from './taken-messages.ts';

let folder: string;
let path: string;
const open: DatabaseSync[] = [];

beforeEach(async () => {
  folder = await mkdtemp(join(tmpdir(), 'nexus-discord-taken-store-'));
  path = join(folder, 'discord-cursor.sqlite');
});
afterEach(async () => {
  for (const database of open.splice(0)) database.close();
  await rm(folder, { recursive: true, force: true });
});

function openFile(): DatabaseSync {
  const database = openDiscordDatabase(path);
  open.push(database);
  return database;
}

function intentOf(messageId: string, authorId = '700'): IntentInput {
  return {
    id: messageId,
    channel: 'discord',
    conversation: { id: '500', kind: 'group', title: 'Guild #general' },
    sender: { platformId: authorId, displayName: 'Alice' },
    userId: `discord:${authorId}`,
    text: 'hello',
    mentionsAssistant: true,
    receivedAt: new Date().toISOString(),
  };
}

function rowCount(database: DatabaseSync): number {
  return (database.prepare('SELECT count(*) AS n FROM discord_taken_message').get() as { n: number }).n;
}

describe('TakenMessages in the adapter’s file', () => {
  it('keeps ids only, and finds them from another connection on the same file', () => {
    const clock = 1_750_000_000_000;
    new TakenMessages(openFile(), { now: () => clock }).remember('1001', intentOf('1001'));
    const reopened = openFile();
    expect(new TakenMessages(reopened, { now: () => clock }).get('1001')).toEqual({
      conversation: { id: '500', kind: 'group' },
      sender: { platformId: '700' },
      userId: 'discord:700',
    });
    const stored = reopened.prepare('SELECT * FROM discord_taken_message').all();
    expect(JSON.stringify(stored)).not.toMatch(/Alice|general/);
    expect(new TakenMessages(reopened, { now: () => clock }).has('1002')).toBe(false);
  });

  it(`keeps the newest ${MAX_TAKEN_MESSAGES} messages, dropping the oldest first`, () => {
    const database = openFile();
    const taken = new TakenMessages(database, { now: Date.now });
    // One transaction only to keep the test quick; the bound is enforced per insert either way.
    inTransaction(database, () => {
      for (let n = 1; n <= MAX_TAKEN_MESSAGES + 5; n++) taken.remember(String(n), intentOf(String(n)));
    });
    expect(rowCount(database)).toBe(MAX_TAKEN_MESSAGES);
    expect(taken.has('5')).toBe(false);
    expect(taken.has('6')).toBe(true);
    // Taken again (a retryable refusal, handed over anew): it becomes the newest and outlives the rest.
    taken.remember('6', intentOf('6'));
    taken.remember(String(MAX_TAKEN_MESSAGES + 6), intentOf('x'));
    expect(rowCount(database)).toBe(MAX_TAKEN_MESSAGES);
    expect(taken.has('6')).toBe(true);
    expect(taken.has('7')).toBe(false);
  });

  it('answers nothing older than 30 days, and the next write deletes such rows', () => {
    const database = openFile();
    let clock = 1_750_000_000_000;
    const taken = new TakenMessages(database, { now: () => clock });
    taken.remember('1', intentOf('1'));
    clock += 1_000;
    taken.remember('2', intentOf('2'));
    clock += TAKEN_MESSAGE_MAX_AGE_MS;
    expect(taken.has('1')).toBe(false);
    expect(taken.has('2')).toBe(true);
    expect(rowCount(database)).toBe(2);
    taken.remember('3', intentOf('3'));
    expect(rowCount(database)).toBe(2);
    expect(database.prepare("SELECT 1 FROM discord_taken_message WHERE message_id = '1'").get()).toBe(
      undefined,
    );
  });

  it('upgrades a file written before the record existed, keeping its cursors', () => {
    const old = openSqliteDatabase({
      path,
      storeName: 'Discord channel cursor',
      migrations: [channelCursorSchema],
    });
    old
      .prepare(
        'INSERT INTO discord_channel_cursor (channel_id, last_message_id, updated_at) VALUES (?, ?, ?)',
      )
      .run('500', '1234', 1);
    old.close();
    const database = openFile();
    expect(openDiscordChannelCursor(database).list()).toEqual([{ channelId: '500', lastMessageId: '1234' }]);
    expect((database.prepare('PRAGMA user_version').get() as { user_version: number }).user_version).toBe(2);
    const taken = new TakenMessages(database, { now: Date.now });
    taken.remember('1', intentOf('1'));
    expect(taken.has('1')).toBe(true);
  });

  it('refuses a file from a newer Nexus instead of writing into it', () => {
    openFile().exec('PRAGMA user_version = 9');
    expect(() => openDiscordDatabase(path)).toThrow(/newer Nexus/);
  });
});
