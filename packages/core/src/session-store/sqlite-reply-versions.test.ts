import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { migrate } from '@nexus/sqlite-kit';
import { afterEach, describe, expect, it } from 'vitest';
import type { SessionStore, StoredTurn } from './session-store.ts';
import { CONVERSATION_LIST_MIGRATION } from './sqlite-conversation-list.ts';
import { INBOX_MIGRATION } from './sqlite-intent-inbox.ts';
import { PERSON_ACTIVITY_MIGRATION } from './sqlite-person-activity.ts';
import { REPLY_VERSIONS_MIGRATION } from './sqlite-reply-versions.ts';
import { createSqliteSessionStore } from './sqlite-session-store.ts';
import { REVISIONS_MIGRATION } from './sqlite-turn-revisions.ts';
import { TURNS_MIGRATION } from './sqlite-turns.ts';

const directories: string[] = [];
function temporaryFile(): string {
  const directory = mkdtempSync(join(tmpdir(), 'nexus-reply-versions-'));
  directories.push(directory);
  return join(directory, 'sessions.db');
}
afterEach(() => {
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
});

function turn(index: number, overrides: Partial<StoredTurn> = {}): StoredTurn {
  return {
    conversationKey: 'web:c',
    channel: 'web',
    userId: 'web:owner',
    intentId: `m${index}`,
    replyId: `r${index}`,
    userText: `question ${index}`,
    replyText: `answer ${index}`,
    outcome: 'ok',
    createdAt: 1_000 + index,
    tokenCount: 7,
    ...overrides,
  };
}

/** What `replyVersion` returns for a version stored from `stored`. */
function asVersion(stored: StoredTurn): StoredTurn {
  const { kind: _kind, ...version } = stored;
  return version;
}

const key = (intentId: string, replyId: string) => ({ channel: 'web', intentId, replyId });

let revisionCount = 0;
function revise(
  store: SessionStore,
  index: number,
  change: Parameters<SessionStore['applyRevision']>[0]['change'],
) {
  revisionCount += 1;
  return store.applyRevision({
    channel: 'web',
    intentId: `edit-${index}-${revisionCount}`,
    targetIntentId: `m${index}`,
    kind: 'edit',
    userId: 'web:owner',
    createdAt: 5_000 + index,
    change,
  });
}

/** Reply ids the conversation list shows, oldest first. */
async function shownReplyIds(store: SessionStore): Promise<(string | undefined)[]> {
  const page = await store.conversations!.messages({ channel: 'web', conversationId: 'c', limit: 50 });
  return page.messages.map((message) => message.replyId);
}

describe('reply versions', () => {
  it("keep a turn's first answer in its row until the turn changes, and read the same either way", async () => {
    const path = temporaryFile();
    const store = createSqliteSessionStore({ path });
    for (let index = 1; index <= 4; index += 1) await store.appendTurn(turn(index));
    // Not a second copy: the first versions are the turns' rows.
    const raw = new DatabaseSync(path);
    const versionRows = () =>
      (raw.prepare('SELECT count(*) AS n FROM reply_versions').get() as { n: number }).n;
    expect(versionRows()).toBe(0);
    expect(await store.replyVersion?.(key('m1', 'r1'))).toEqual(asVersion(turn(1)));
    expect(await store.replyVersion?.(key('m1', 'r2'))).toBeUndefined();

    // A replay of a stored intent keeps the first turn; an answer under a new id is a version,
    // one under the turn's own id is not (the first write of an id wins).
    await store.appendTurn(turn(1, { replyText: 'replayed, same id' }));
    await store.appendTurn(turn(1, { replyId: 'r1-again', replyText: 'replayed', createdAt: 1_500 }));
    expect(await store.replyVersion?.(key('m1', 'r1'))).toEqual(asVersion(turn(1)));
    expect(await store.replyVersion?.(key('m1', 'r1-again'))).toEqual(
      asVersion(turn(1, { replyId: 'r1-again', replyText: 'replayed', createdAt: 1_500 })),
    );
    expect((await store.history({ conversationKey: 'web:c', limit: 10 }))[0]?.replyText).toBe('answer 1');

    // Regenerating the newest answer: both versions stay, the new one is shown.
    await revise(store, 4, {
      type: 'replace',
      turn: turn(4, { replyId: 'r4b', replyText: 'again', createdAt: 4_000 }),
    });
    expect(await store.replyVersion?.(key('m4', 'r4'))).toEqual(asVersion(turn(4)));
    expect(await store.replyVersion?.(key('m4', 'r4b'))).toEqual(
      asVersion(turn(4, { replyId: 'r4b', replyText: 'again', createdAt: 4_000 })),
    );
    expect(await shownReplyIds(store)).toEqual(['r1', 'r2', 'r3', 'r4b']);
    // Choosing the first one back: stored again under its own id, and shown under it.
    const first = await store.replyVersion?.(key('m4', 'r4'));
    await revise(store, 4, { type: 'replace', turn: { ...first!, createdAt: 6_000 } });
    expect(await store.replyVersion?.(key('m4', 'r4'))).toEqual(asVersion(turn(4)));
    expect(await shownReplyIds(store)).toEqual(['r1', 'r2', 'r3', 'r4']);

    // An older message edited: its version keeps the words it was answered with.
    await revise(store, 2, {
      type: 'note',
      userText: 'question 2, edited',
      tokenCount: 9,
      note: turn(9, { intentId: 'note-2', userText: 'a note', replyText: '' }),
    });
    // A note is no answer: it keeps no version, whatever id it carries.
    expect(await store.replyVersion?.(key('note-2', 'r9'))).toBeUndefined();
    expect(await store.replyVersion?.(key('m2', 'r2'))).toEqual(asVersion(turn(2)));
    expect(await shownReplyIds(store)).toEqual(['r1', 'r2', 'r3', 'r4']);
    // A deleted message's versions are kept as before (only `/forget-me` removes them).
    await revise(store, 3, { type: 'delete' });
    expect(await store.replyVersion?.(key('m3', 'r3'))).toEqual(asVersion(turn(3)));
    raw.close();
    await store.close();
  });

  it('are forgotten with their person, from the turn rows and the versions table alike', async () => {
    const path = temporaryFile();
    const store = createSqliteSessionStore({ path });
    const secret = 'versioned-secret-4471';
    await store.appendTurn(turn(1, { replyText: `first ${secret}` }));
    await store.appendTurn(turn(2, { replyText: `kept in the row ${secret}` }));
    await revise(store, 1, {
      type: 'replace',
      turn: turn(1, { replyId: 'r1b', replyText: `second ${secret}` }),
    });
    await store.appendTurn(turn(3, { userId: 'web:other', replyText: 'not theirs' }));
    await store.forgetPeople?.({ userIds: ['web:owner'] });
    for (const [intentId, replyId] of [
      ['m1', 'r1'],
      ['m1', 'r1b'],
      ['m2', 'r2'],
    ] as const)
      expect(await store.replyVersion?.(key(intentId, replyId))).toBeUndefined();
    expect(await store.replyVersion?.(key('m3', 'r3'))).toMatchObject({ replyText: 'not theirs' });
    for (const file of [path, `${path}-wal`])
      expect(readFileSync(file).includes(Buffer.from(secret)), file).toBe(false);
    await store.close();
  });
});

describe('upgrading a file from schema 6 (every version a row of reply_versions)', () => {
  it('adds the turns’ reply id without rewriting a row, rebuilds only the owner index, and every read answers as before', async () => {
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
      ],
    });
    // As schema 6 wrote them: each turn, and its answer again as a version; m2 regenerated.
    const insertTurn = old.prepare(
      `INSERT INTO turns (channel, intent_id, conversation_key, user_id, user_text, reply_text, outcome, token_count, created_at)
       VALUES (:channel, :intentId, :conversationKey, :userId, :userText, :replyText, :outcome, :tokenCount, :createdAt)`,
    );
    const insertVersion = old.prepare(
      `INSERT INTO reply_versions (channel, intent_id, reply_id, conversation_key, user_id, user_text, reply_text, outcome, token_count, created_at)
       VALUES (:channel, :intentId, :replyId, :conversationKey, :userId, :userText, :replyText, :outcome, :tokenCount, :createdAt)`,
    );
    const columns = (stored: StoredTurn) => {
      const { kind: _kind, ...row } = stored;
      return row as Record<string, string | number>;
    };
    for (let index = 1; index <= 3; index += 1) {
      const { replyId: _replyId, ...row } = columns(turn(index));
      insertTurn.run(row);
      insertVersion.run(columns(turn(index)));
    }
    const regenerated = turn(2, { replyId: 'r2b', replyText: 'again', createdAt: 4_000 });
    insertVersion.run(columns(regenerated));
    old.prepare("UPDATE turns SET reply_text = 'again', created_at = 4000 WHERE intent_id = 'm2'").run();
    // Listed conversations, two of them last touched at the same moment.
    old.exec(`INSERT INTO conversation_list (channel, conversation_id, owner, title, created_at, updated_at) VALUES
      ('web', 'c', 'owner', 'C', 1, 30), ('web', 'b', 'owner', 'B', 1, 20), ('web', 'd', 'owner', 'D', 1, 20),
      ('web', 'a', 'owner', 'A', 1, 40), ('web', 'x', 'other', 'X', 1, 50)`);
    const listedBefore = old
      .prepare(
        "SELECT conversation_id FROM conversation_list WHERE channel = 'web' AND owner = 'owner' ORDER BY updated_at DESC",
      )
      .all()
      .map((row) => row.conversation_id);
    expect(listedBefore).toEqual(['a', 'c', 'd', 'b']);
    const pagesBefore = (old.prepare('PRAGMA page_count').get() as { page_count: number }).page_count;
    old.close();

    const store = createSqliteSessionStore({ path });
    const raw = new DatabaseSync(path);
    expect(raw.prepare('PRAGMA user_version').get()).toEqual({ user_version: 9 });
    // A schema edit, not a rebuild: no page added, every version row still there.
    expect((raw.prepare('PRAGMA page_count').get() as { page_count: number }).page_count).toBe(pagesBefore);
    expect(raw.prepare('SELECT count(*) AS n FROM reply_versions').get()).toEqual({ n: 4 });
    expect(raw.prepare('SELECT count(*) AS n FROM turns WHERE reply_id IS NULL').get()).toEqual({ n: 3 });

    // The owner index no longer holds the time (a touch moved its entry); a list reads the same.
    expect(
      raw.prepare("SELECT name FROM pragma_index_info('conversation_list_by_owner') ORDER BY seqno").all(),
    ).toEqual([{ name: 'channel' }, { name: 'owner' }]);
    const listed = await store.conversations!.list({ channel: 'web', owner: 'owner', limit: 10 });
    expect(listed.map((entry) => entry.conversationId)).toEqual(listedBefore);
    expect(
      (await store.conversations!.list({ channel: 'web', owner: 'owner', limit: 2 })).map(
        (e) => e.conversationId,
      ),
    ).toEqual(['a', 'c']);

    const history = await store.history({ conversationKey: 'web:c', limit: 10 });
    expect(history.map((stored) => [stored.intentId, stored.replyText])).toEqual([
      ['m1', 'answer 1'],
      ['m2', 'again'],
      ['m3', 'answer 3'],
    ]);
    expect(await store.replyVersion?.(key('m1', 'r1'))).toEqual(asVersion(turn(1)));
    expect(await store.replyVersion?.(key('m2', 'r2'))).toEqual(asVersion(turn(2)));
    expect(await store.replyVersion?.(key('m2', 'r2b'))).toEqual(asVersion(regenerated));
    expect(await shownReplyIds(store)).toEqual(['r1', 'r2b', 'r3']);
    expect(await store.lookUpMessage({ channel: 'web', intentId: 'm3' })).toMatchObject({
      state: 'answered',
      latest: true,
    });
    // An upgraded turn changes as before, and a new turn keeps its first version in its row.
    await revise(store, 3, { type: 'replace', turn: turn(3, { replyId: 'r3b', replyText: 'later' }) });
    await store.appendTurn(turn(4));
    expect(await store.replyVersion?.(key('m3', 'r3'))).toEqual(asVersion(turn(3)));
    expect(await store.replyVersion?.(key('m4', 'r4'))).toEqual(asVersion(turn(4)));
    expect(await shownReplyIds(store)).toEqual(['r1', 'r2b', 'r3b', 'r4']);
    raw.close();
    await store.close();
  });
});
