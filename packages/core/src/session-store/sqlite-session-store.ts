import { openSqliteDatabase, othersCommittedWatcher } from '@nexus/sqlite-kit';
import { RecentPersonActivity } from './recent-person-activity.ts';
import { RecentTurnsCache } from './recent-turns-cache.ts';
import type { AppendTurnOptions, SessionStore, StoredTurn } from './session-store.ts';
import { createSessionTables, forgetConversationInTables, forgetPeopleInTables } from './session-tables.ts';
import { SessionWriteQueue } from './session-write-queue.ts';
import {
  CONVERSATION_LIST_MIGRATION,
  CONVERSATION_LIST_OWNER_INDEX_MIGRATION,
} from './sqlite-conversation-list.ts';
import { INBOX_DECIDED_WHEN_CHANGED_MIGRATION, INBOX_MIGRATION } from './sqlite-intent-inbox.ts';
import { PERSON_ACTIVITY_MIGRATION } from './sqlite-person-activity.ts';
import { REPLY_VERSIONS_MIGRATION, TURN_REPLY_ID_MIGRATION } from './sqlite-reply-versions.ts';
import { REVISIONS_MIGRATION } from './sqlite-turn-revisions.ts';
import { TURNS_MIGRATION } from './sqlite-turns.ts';

export interface SqliteSessionStoreOptions {
  /** A file path, or ':memory:' for a store that lives as long as the process. */
  path: string;
  /** How long a write waits for another connection's lock before failing. */
  busyTimeoutMs?: number;
  /** Characters of turn text the recent-history cache may hold (see RecentTurnsCache). */
  historyCacheSize?: number;
  /**
   * Called when the store sees that another connection committed to the file (`nexus users
   * forget` in another process), when it drops its own copies: at most once per event-loop pass,
   * before the read that noticed it. What the process remembers about the stored conversations
   * elsewhere can be dropped with them (the gateway forgets its scheduled summaries).
   */
  onChangedElsewhere?: () => void;
}

/** 4M characters: a few MB at most, history for thousands of short conversations. */
const DEFAULT_HISTORY_CACHE_SIZE = 4_000_000;
/** How far the file's record of a person's last activity may lag what this process saw (see RecentPersonActivity). */
const ACTIVITY_WRITE_INTERVAL_MS = 60_000;

/** Each entry moves the schema one version up; `PRAGMA user_version` records how far a file is. */
const MIGRATIONS: readonly string[] = [
  TURNS_MIGRATION,
  INBOX_MIGRATION,
  REVISIONS_MIGRATION,
  PERSON_ACTIVITY_MIGRATION,
  REPLY_VERSIONS_MIGRATION,
  CONVERSATION_LIST_MIGRATION,
  TURN_REPLY_ID_MIGRATION,
  CONVERSATION_LIST_OWNER_INDEX_MIGRATION,
  INBOX_DECIDED_WHEN_CHANGED_MIGRATION,
];

/**
 * The embedded SessionStore: one SQLite file through `node:sqlite`, WAL journal so reads never
 * wait for the writer, statements prepared once. Calls are synchronous underneath and short
 * (indexed lookups and single-row inserts). The intake inbox shares the file, so admitting an
 * intent and checking it was not answered, or storing a turn and finishing its entry, are each
 * one transaction. A commit survives the process being killed (WAL, `synchronous=NORMAL`); a
 * power cut may lose the last commits. Writes of concurrent turns (admit, reply, stored turn,
 * finish) queued in one event-loop turn share one transaction (see SessionWriteQueue); each
 * promise settles after that commit, and every read (but intake's early de-dupe check,
 * `hasIntent`) first commits what is queued, so nothing reads around a pending write.
 */
export function createSqliteSessionStore(options: SqliteSessionStoreOptions): SessionStore {
  const database = openSqliteDatabase({
    path: options.path,
    ...(options.busyTimeoutMs !== undefined ? { busyTimeoutMs: options.busyTimeoutMs } : {}),
    migrations: MIGRATIONS,
    storeName: 'session store',
  });
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
    options.onChangedElsewhere?.();
  };
  // A committed write whose callback failed is in the file all the same: only the cache is unsure.
  const writes = new SessionWriteQueue(database, () => recent.clear());
  const tables = createSessionTables(database, {
    write: (operation) => writes.write(operation),
    writeOne: (operation) => writes.writeOne(operation),
    settled: () => writes.settle(),
    historyChanged: () => recent.clear(),
  });
  const { turns, inbox, revisions, activity, versions, conversations } = tables;
  /**
   * Stores a turn, or a note about an edit; a turn's answer is also kept as a version of its
   * message: in the turn's row, or (an intent stored before keeps its first turn) as a version row.
   */
  const insertTurn = (turn: AppendTurnOptions, note?: { kind: 'note'; revises: string }): boolean => {
    const stored = turns.insert(turn, note);
    if (!stored && !note) versions.record(turn);
    return stored;
  };

  return {
    conversations,
    async hasIntent(key) {
      // Committed state only, without committing what is queued: this is intake's early
      // de-dupe, and a write still queued for an intent (its admission, its stored turn) is
      // covered by intake's in-process claim on that intent; `admitIntent` decides for good
      // inside the write transaction. Flushing here would cut the group commit short per message.
      writes.ensureOpen();
      return turns.seen(key);
    },
    async appendTurn(turn: AppendTurnOptions) {
      let stored = false;
      const storeTurn = () => {
        stored = insertTurn(turn);
        inbox.finish(turn);
      };
      await writes.write(storeTurn, turn.conversationKey, () => {
        if (stored) recent.appended(asRead(turn));
      });
    },
    admitIntent: async (entry) => writes.writeOne(() => inbox.admit(entry)),
    recordReply: async ({ replyText, ...key }) => writes.writeOne(() => inbox.recordReply(key, replyText)),
    finishIntent: async (key) => writes.writeOne(() => inbox.finish(key)),
    countReplay: async (key) => writes.writeOne(() => inbox.countReplay(key)),
    async markActive({ userId, at }) {
      writes.ensureOpen();
      dropCopiesIfOthersCommitted();
      const answered = knownActivity.answer(userId, at);
      if (answered) return answered.before;
      // In the write queue: two messages of one person in the same moment see each other.
      const stored = await writes.writeOne(() => activity.mark(userId, at));
      return knownActivity.written(userId, at, stored);
    },
    async unfinishedIntents() {
      writes.settle();
      return inbox.unfinished();
    },
    async lookUpMessage(key) {
      writes.settle();
      return revisions.lookUp(key);
    },
    async applyRevision(options) {
      writes.settle();
      // Edits and deletes reach into history anywhere: read it again afterwards.
      try {
        revisions.apply(options, insertTurn, inbox.finish, versions);
      } finally {
        recent.clear();
      }
    },
    async replyVersion(key) {
      writes.settle();
      return versions.find(key);
    },
    async history({ conversationKey, limit }) {
      // Only this conversation's queued turns matter here; other turns' writes stay batched.
      writes.settleConversation(conversationKey);
      if (limit <= 0) return [];
      const newest = Math.floor(limit);
      dropCopiesIfOthersCommitted();
      const cached = recent.get(conversationKey, newest);
      if (cached) return cached;
      const read = turns.newest(conversationKey, newest);
      recent.set(conversationKey, newest, read);
      return read.slice();
    },
    async forgetPeople({ userIds }) {
      writes.settle();
      recent.clear();
      knownActivity.clear();
      return forgetPeopleInTables(tables, userIds);
    },
    async forgetConversation({ conversationKey, userIds }) {
      writes.ensureOpen();
      recent.clear();
      return forgetConversationInTables(tables, conversationKey, userIds);
    },
    async close() {
      if (writes.closed) return;
      // The activity not yet in the file goes with the last commit.
      const unwritten = knownActivity.unwritten();
      if (unwritten.length > 0)
        void writes
          .write(() => {
            for (const { userId, at } of unwritten) activity.mark(userId, at);
          })
          .catch(() => {
            // Already closing: the record stays at its last write, at most a minute behind.
          });
      writes.close();
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
