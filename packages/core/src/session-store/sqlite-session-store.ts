import { NexusError } from '@nexus/protocol';
import {
  checkpointAndTruncate,
  GroupCommit,
  inSavepoint,
  inTransaction,
  openSqliteDatabase,
  othersCommittedWatcher,
  statementsPerLimit,
} from '@nexus/sqlite-kit';
import { RecentPersonActivity } from './recent-person-activity.ts';
import { RecentTurnsCache } from './recent-turns-cache.ts';
import type { AppendTurnOptions, SessionStore, StoredTurn } from './session-store.ts';
import { CONVERSATION_LIST_MIGRATION, createSqliteConversationList } from './sqlite-conversation-list.ts';
import { createSqliteIntentInbox, INBOX_MIGRATION, INBOX_WAITING_SQL } from './sqlite-intent-inbox.ts';
import { createSqlitePersonActivity, PERSON_ACTIVITY_MIGRATION } from './sqlite-person-activity.ts';
import { createSqliteReplyVersions, REPLY_VERSIONS_MIGRATION } from './sqlite-reply-versions.ts';
import {
  createSqliteTurnRevisions,
  REVISION_KNOWN_SQL,
  REVISIONS_MIGRATION,
} from './sqlite-turn-revisions.ts';
import { TURN_COLUMNS, type TurnRow, toStoredTurn } from './sqlite-turn-row.ts';

export interface SqliteSessionStoreOptions {
  /** A file path, or ':memory:' for a store that lives as long as the process. */
  path: string;
  /** How long a write waits for another connection's lock before failing. */
  busyTimeoutMs?: number;
  /** Characters of turn text the recent-history cache may hold (see RecentTurnsCache). */
  historyCacheSize?: number;
}

interface QueuedWrite {
  operation: () => unknown;
  /** Set for a stored turn: a history read of that conversation must commit it first. */
  conversationKey: string | undefined;
  /** Runs once the write is committed (not when it failed or its transaction did). */
  committed: (() => void) | undefined;
}

/** 4M characters: a few MB at most, history for thousands of short conversations. */
const DEFAULT_HISTORY_CACHE_SIZE = 4_000_000;
/** How far the file's record of a person's last activity may lag what this process saw (see RecentPersonActivity). */
const ACTIVITY_WRITE_INTERVAL_MS = 60_000;

/** Each entry moves the schema one version up; `PRAGMA user_version` records how far a file is. */
const MIGRATIONS: readonly string[] = [
  `CREATE TABLE turns (
     seq INTEGER PRIMARY KEY AUTOINCREMENT,
     channel TEXT NOT NULL,
     intent_id TEXT NOT NULL,
     conversation_key TEXT NOT NULL,
     user_id TEXT NOT NULL,
     user_text TEXT NOT NULL,
     reply_text TEXT NOT NULL,
     outcome TEXT NOT NULL CHECK (outcome IN ('ok', 'error', 'aborted')),
     token_count INTEGER,
     created_at INTEGER NOT NULL,
     UNIQUE (channel, intent_id)
   );
   CREATE INDEX turns_by_conversation ON turns (conversation_key, seq);`,
  INBOX_MIGRATION,
  REVISIONS_MIGRATION,
  PERSON_ACTIVITY_MIGRATION,
  REPLY_VERSIONS_MIGRATION,
  CONVERSATION_LIST_MIGRATION,
];

/**
 * The embedded SessionStore: one SQLite file through `node:sqlite`, WAL journal so reads never
 * wait for the writer, statements prepared once. Calls are synchronous underneath and short
 * (indexed lookups and single-row inserts). The intake inbox shares the file, so admitting an
 * intent and checking it was not answered, or storing a turn and finishing its entry, are each
 * one transaction. A commit survives the process being killed (WAL, `synchronous=NORMAL`); a
 * power cut may lose the last commits. Writes of concurrent turns (admit, reply, stored turn,
 * finish) queued in one event-loop turn share one transaction (group commit), each in its own
 * savepoint so a failing write undoes only itself; each promise settles after that commit, and
 * every read (but intake's early de-dupe check, `hasIntent`) first commits what is queued, so
 * nothing reads around a pending write.
 */
export function createSqliteSessionStore(options: SqliteSessionStoreOptions): SessionStore {
  const database = openSqliteDatabase({
    path: options.path,
    ...(options.busyTimeoutMs !== undefined ? { busyTimeoutMs: options.busyTimeoutMs } : {}),
    migrations: MIGRATIONS,
    storeName: 'session store',
  });

  // Answered, revised, deleted or waiting: intake asks it of every message twice (the early
  // de-dupe here, then inside the inbox's admitting insert, which writes only when it is false).
  const seenSql = `(EXISTS (SELECT 1 FROM turns WHERE channel = :channel AND intent_id = :intentId)
       OR ${REVISION_KNOWN_SQL} OR ${INBOX_WAITING_SQL})`;
  const seenStatement = database.prepare(`SELECT ${seenSql} AS seen`);
  const insertStatement = database.prepare(
    `INSERT INTO turns (channel, intent_id, conversation_key, user_id, user_text, reply_text, outcome, token_count, created_at, kind, revises_intent_id)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (channel, intent_id) DO NOTHING`,
  );
  const historyStatement = statementsPerLimit(
    database,
    (limit) =>
      `SELECT ${TURN_COLUMNS} FROM turns WHERE conversation_key = ? ORDER BY seq DESC LIMIT ${limit}`,
  );
  const forgetStatement = database.prepare('DELETE FROM turns WHERE user_id = ?');
  // The conversation's key, or a later generation of it (`<key>#<n>`, after `/new`).
  const forgetConversationStatement = database.prepare(
    `DELETE FROM turns WHERE user_id = :userId
       AND (conversation_key = :key OR substr(conversation_key, 1, length(:key) + 1) = :key || '#')`,
  );
  // Inbox entries keep the whole intent as JSON: the person's ids appear there as JSON strings.
  const forgetInboxStatement = database.prepare(
    'DELETE FROM inbox WHERE instr(intent_json, ?1) > 0 OR instr(decided_json, ?1) > 0',
  );
  const inbox = createSqliteIntentInbox(database, seenSql);
  const revisions = createSqliteTurnRevisions(database);
  const activity = createSqlitePersonActivity(database);
  const versions = createSqliteReplyVersions(database);
  const isSeen = ({ channel, intentId }: { channel: string; intentId: string }) =>
    (seenStatement.get({ channel, intentId }) as { seen: number }).seen === 1;
  /** Returns whether the turn was stored (an intent stored before keeps its first turn). */
  const insertTurn = (turn: AppendTurnOptions, note?: { kind: 'note'; revises: string }): boolean => {
    if (!note) versions.record(turn);
    return (
      insertStatement.run(
        turn.channel,
        turn.intentId,
        turn.conversationKey,
        turn.userId,
        turn.userText,
        turn.replyText,
        turn.outcome,
        turn.tokenCount ?? null,
        turn.createdAt,
        note ? 'note' : 'turn',
        note ? note.revises : null,
      ).changes !== 0
    );
  };
  // History reads are served from here while nothing but this store's own commits changed the
  // file: `PRAGMA data_version` moves when another connection (`nexus users forget`, another
  // process) commits, and then the cache is emptied. Read once per pass of the event loop.
  const recent = new RecentTurnsCache(options.historyCacheSize ?? DEFAULT_HISTORY_CACHE_SIZE);
  // Each person's last activity, written at most once a minute while they keep talking.
  const knownActivity = new RecentPersonActivity({ writeIntervalMs: ACTIVITY_WRITE_INTERVAL_MS });
  const othersCommitted = othersCommittedWatcher(database);
  /** Empties what is kept in memory when another connection committed (once per event-loop pass). */
  const dropCopiesIfOthersCommitted = () => {
    if (!othersCommitted()) return;
    recent.clear();
    knownActivity.clear();
  };
  let closed = false;
  // How many writes of each conversation wait in the queue: a history read flushes only when its
  // own conversation has one, and under load the queue holds hundreds of other writes (scanning
  // them on every read was 1.3% of the gateway's CPU under bench:gateway).
  const queuedByConversation = new Map<string, number>();
  const writes = new GroupCommit<QueuedWrite, unknown>((queued) => {
    // Out of the queue from here, whether the commit succeeds or not.
    for (const { conversationKey } of queued) {
      if (conversationKey === undefined) continue;
      const left = (queuedByConversation.get(conversationKey) ?? 1) - 1;
      if (left > 0) queuedByConversation.set(conversationKey, left);
      else queuedByConversation.delete(conversationKey);
    }
    const outcomes = inTransaction(database, () =>
      queued.map(({ operation }) => inSavepoint(database, operation)),
    );
    // Committed: before any read can run (a read flushes first, synchronously). The writes are
    // in the file whatever happens here, so a failure only costs the cache.
    try {
      queued.forEach(({ committed }, index) => {
        if (!(outcomes[index] instanceof Error)) committed?.();
      });
    } catch {
      recent.clear();
    }
    return outcomes;
  });
  const write = <R>(operation: () => R, conversationKey?: string, committed?: () => void): Promise<R> => {
    if (conversationKey !== undefined)
      queuedByConversation.set(conversationKey, (queuedByConversation.get(conversationKey) ?? 0) + 1);
    return writes.add({ operation, conversationKey, committed }) as Promise<R>;
  };

  const conversations = createSqliteConversationList(database, {
    write: (operation) => {
      ensureOpen();
      return write(operation);
    },
    settled: () => settled(),
    historyChanged: () => recent.clear(),
  });

  function ensureOpen(): void {
    if (closed) throw new NexusError({ code: 'internal', message: 'The session store is closed.' });
  }

  /** Ensures the store is open and commits queued writes, so a read sees them. */
  function settled(): void {
    ensureOpen();
    writes.flush();
  }

  return {
    conversations,
    async hasIntent({ channel, intentId }) {
      // Committed state only, without committing what is queued: this is intake's early
      // de-dupe, and a write still queued for an intent (its admission, its stored turn) is
      // covered by intake's in-process claim on that intent; `admitIntent` decides for good
      // inside the write transaction. Flushing here would cut the group commit short per message.
      ensureOpen();
      return isSeen({ channel, intentId });
    },
    async appendTurn(turn: AppendTurnOptions) {
      ensureOpen();
      let stored = false;
      await write(
        () => {
          stored = insertTurn(turn);
          inbox.finish(turn);
        },
        turn.conversationKey,
        () => {
          if (stored) recent.appended(asRead(turn));
        },
      );
    },
    async admitIntent(entry) {
      ensureOpen();
      return write(() => inbox.admit(entry));
    },
    async recordReply({ replyText, ...key }) {
      ensureOpen();
      await write(() => inbox.recordReply(key, replyText));
    },
    async finishIntent(key) {
      ensureOpen();
      await write(() => inbox.finish(key));
    },
    async markActive({ userId, at }) {
      ensureOpen();
      dropCopiesIfOthersCommitted();
      const answered = knownActivity.answer(userId, at);
      if (answered) return answered.before;
      // In the write queue: two messages of one person in the same moment see each other.
      const stored = await write(() => activity.mark(userId, at));
      return knownActivity.written(userId, at, stored);
    },
    async countReplay(key) {
      ensureOpen();
      await write(() => inbox.countReplay(key));
    },
    async unfinishedIntents() {
      settled();
      return inbox.unfinished();
    },
    async lookUpMessage(key) {
      settled();
      return revisions.lookUp(key);
    },
    async applyRevision(options) {
      settled();
      // Edits and deletes reach into history anywhere: read it again afterwards.
      try {
        revisions.apply(options, insertTurn, inbox.finish, versions.record);
      } finally {
        recent.clear();
      }
    },
    async replyVersion(key) {
      settled();
      return versions.find(key);
    },
    async history({ conversationKey, limit }) {
      ensureOpen();
      // Only this conversation's queued turns matter here; other turns' writes stay batched.
      if (queuedByConversation.has(conversationKey)) writes.flush();
      if (limit <= 0) return [];
      const newest = Math.floor(limit);
      dropCopiesIfOthersCommitted();
      const cached = recent.get(conversationKey, newest);
      if (cached) return cached;
      const rows = historyStatement(newest).all(conversationKey) as unknown as TurnRow[];
      const turns = rows.reverse().map(toStoredTurn);
      recent.set(conversationKey, newest, turns);
      return turns.slice();
    },
    async forgetPeople({ userIds }) {
      settled();
      // Turns, and the intake inbox's entries of theirs not answered yet (they are not answered now).
      recent.clear();
      knownActivity.clear();
      const deleted = inTransaction(database, () => {
        // The record of their edits and deletes goes too (ids only, but theirs).
        for (const userId of userIds) {
          revisions.forgetPerson(userId);
          activity.forget(userId);
          versions.forgetPerson(userId);
        }
        // A person id is `<channel>:<platform id>`: their conversation list goes with their turns.
        conversations.forgetOwners(
          userIds.flatMap((userId) => {
            const colon = userId.indexOf(':');
            return colon > 0 ? [{ channel: userId.slice(0, colon), owner: userId.slice(colon + 1) }] : [];
          }),
        );
        return userIds.reduce(
          (sum, userId) =>
            sum +
            Number(forgetStatement.run(userId).changes) +
            Number(forgetInboxStatement.run(JSON.stringify(userId)).changes),
          0,
        );
      });
      checkpointAndTruncate(database);
      return deleted;
    },
    async forgetConversation({ conversationKey, userIds }) {
      ensureOpen();
      recent.clear();
      // Returns the turns deleted; the versions of their answers go with them.
      const deleted = inTransaction(database, () =>
        userIds.reduce((sum, userId) => {
          versions.forgetConversation(userId, conversationKey);
          return sum + Number(forgetConversationStatement.run({ userId, key: conversationKey }).changes);
        }, 0),
      );
      checkpointAndTruncate(database);
      return deleted;
    },
    async close() {
      if (closed) return;
      // The activity not yet in the file goes with the last commit.
      const unwritten = knownActivity.unwritten();
      if (unwritten.length > 0)
        void write(() => {
          for (const { userId, at } of unwritten) activity.mark(userId, at);
        }).catch(() => {
          // Already closing: the record stays at its last write, at most a minute behind.
        });
      writes.flush();
      closed = true;
      recent.clear();
      database.close();
    },
  };
}

/** A stored turn as a read of its row returns it (the same fields, no others). */
function asRead(turn: AppendTurnOptions): StoredTurn {
  return {
    conversationKey: turn.conversationKey,
    channel: turn.channel,
    userId: turn.userId,
    intentId: turn.intentId,
    userText: turn.userText,
    replyText: turn.replyText,
    outcome: turn.outcome,
    createdAt: turn.createdAt,
    ...(turn.tokenCount === undefined || turn.tokenCount === null ? {} : { tokenCount: turn.tokenCount }),
  };
}
