import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import type { Intent } from '@nexus/protocol';
import { migrate } from '@nexus/sqlite-kit';
import { afterEach, describe, expect, it } from 'vitest';
import type { AdmitIntentOptions } from './session-store.ts';
import {
  CONVERSATION_LIST_MIGRATION,
  CONVERSATION_LIST_OWNER_INDEX_MIGRATION,
} from './sqlite-conversation-list.ts';
import { INBOX_MIGRATION } from './sqlite-intent-inbox.ts';
import { PERSON_ACTIVITY_MIGRATION } from './sqlite-person-activity.ts';
import { REPLY_VERSIONS_MIGRATION, TURN_REPLY_ID_MIGRATION } from './sqlite-reply-versions.ts';
import { createSqliteSessionStore } from './sqlite-session-store.ts';
import { REVISIONS_MIGRATION } from './sqlite-turn-revisions.ts';
import { TURNS_MIGRATION } from './sqlite-turns.ts';

const directories: string[] = [];
function temporaryFile(): string {
  const directory = mkdtempSync(join(tmpdir(), 'nexus-intent-inbox-'));
  directories.push(directory);
  return join(directory, 'sessions.db');
}
afterEach(() => {
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
});

function intent(id: string, userId = 'web:u1'): Intent {
  return {
    id,
    channel: 'web',
    conversation: { id: 'c1', kind: 'direct' },
    sender: { platformId: 'u1' },
    userId,
    text: `message ${id}`,
    attachments: [],
    mentionsAssistant: true,
    receivedAt: new Date(0).toISOString(),
  };
}

function entry(id: string, decided: Intent = intent(id)): AdmitIntentOptions {
  return {
    channel: 'web',
    intentId: id,
    conversationKey: 'web:c1',
    kind: 'turn',
    intent: intent(id),
    decided,
    acceptedAt: 1,
  };
}

/** The inbox rows as stored: each entry's decided JSON, null when it is the arrived intent's. */
function storedDecided(path: string): { intent_id: string; decided_json: string | null; seq: number }[] {
  const raw = new DatabaseSync(path);
  try {
    return raw.prepare('SELECT intent_id, decided_json, seq FROM inbox ORDER BY seq').all() as never;
  } finally {
    raw.close();
  }
}

describe('sqlite intent inbox', () => {
  it('stores the decided intent only when it differs, and gives both back on replay', async () => {
    const path = temporaryFile();
    const store = createSqliteSessionStore({ path });
    const linked = intent('m2', 'person:ada');
    await store.admitIntent(entry('m1'));
    await store.admitIntent(entry('m2', linked));
    // An equal copy, not the same object, is stored once too.
    await store.admitIntent(entry('m3', intent('m3')));
    expect(storedDecided(path).map((row) => [row.intent_id, row.decided_json])).toEqual([
      ['m1', null],
      ['m2', JSON.stringify(linked)],
      ['m3', null],
    ]);
    const unfinished = await store.unfinishedIntents();
    expect(unfinished.map((found) => [found.intentId, found.intent, found.decided])).toEqual([
      ['m1', intent('m1'), intent('m1')],
      ['m2', intent('m2'), linked],
      ['m3', intent('m3'), intent('m3')],
    ]);
    // Forgetting a person finds them in a decided intent held apart, and not elsewhere.
    expect(await store.forgetPeople?.({ userIds: ['person:ada'] })).toBe(1);
    expect((await store.unfinishedIntents()).map((found) => found.intentId)).toEqual(['m1', 'm3']);
    await store.close();
  });
});

describe('upgrading a file from schema 8 (every inbox entry held its decided intent)', () => {
  it('keeps each entry, drops the decided copies equal to the intent, and hands out no seq twice', async () => {
    const path = temporaryFile();
    const old = new DatabaseSync(path);
    old.exec('PRAGMA journal_mode = WAL');
    migrate(old, {
      storeName: 'session store',
      migrations: [
        TURNS_MIGRATION,
        INBOX_MIGRATION,
        REVISIONS_MIGRATION,
        PERSON_ACTIVITY_MIGRATION,
        REPLY_VERSIONS_MIGRATION,
        CONVERSATION_LIST_MIGRATION,
        TURN_REPLY_ID_MIGRATION,
        CONVERSATION_LIST_OWNER_INDEX_MIGRATION,
      ],
    });
    // As schema 8 wrote them: both copies always; m3 was answered, so seq 3 was used and is gone.
    const insert = old.prepare(
      `INSERT INTO inbox (channel, intent_id, conversation_key, kind, intent_json, decided_json, reply_text, accepted_at, replays)
       VALUES ('web', ?, 'web:c1', ?, ?, ?, ?, 1, ?)`,
    );
    const linked = intent('m2', 'person:ada');
    insert.run('m1', 'turn', JSON.stringify(intent('m1')), JSON.stringify(intent('m1')), null, 2);
    insert.run('m2', 'reply', JSON.stringify(intent('m2')), JSON.stringify(linked), 'the answer', 0);
    insert.run('m3', 'turn', JSON.stringify(intent('m3')), JSON.stringify(intent('m3')), null, 0);
    old.exec("DELETE FROM inbox WHERE intent_id = 'm3'");
    const pagesBefore = (old.prepare('PRAGMA page_count').get() as { page_count: number }).page_count;
    old.close();

    const store = createSqliteSessionStore({ path });
    const raw = new DatabaseSync(path);
    expect(raw.prepare('PRAGMA user_version').get()).toEqual({ user_version: 9 });
    expect((raw.prepare('PRAGMA page_count').get() as { page_count: number }).page_count).toBe(pagesBefore);
    expect(
      raw.prepare("SELECT \"notnull\" FROM pragma_table_info('inbox') WHERE name = 'decided_json'").get(),
    ).toEqual({ notnull: 0 });
    raw.close();
    expect(storedDecided(path).map((row) => [row.seq, row.intent_id, row.decided_json])).toEqual([
      [1, 'm1', null],
      [2, 'm2', JSON.stringify(linked)],
    ]);
    expect(await store.unfinishedIntents()).toEqual([
      {
        channel: 'web',
        intentId: 'm1',
        conversationKey: 'web:c1',
        kind: 'turn',
        intent: intent('m1'),
        decided: intent('m1'),
        acceptedAt: 1,
        replays: 2,
      },
      {
        channel: 'web',
        intentId: 'm2',
        conversationKey: 'web:c1',
        kind: 'reply',
        intent: intent('m2'),
        decided: linked,
        acceptedAt: 1,
        replays: 0,
        replyText: 'the answer',
      },
    ]);
    // m3's seq was handed out before: the next entry comes after it.
    expect(await store.admitIntent(entry('m4'))).toBe('admitted');
    expect(storedDecided(path).at(-1)).toEqual({ intent_id: 'm4', decided_json: null, seq: 4 });
    await store.close();
  });
});
