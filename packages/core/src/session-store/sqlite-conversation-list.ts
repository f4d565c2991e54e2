import type { DatabaseSync, StatementSync } from 'node:sqlite';
import type {
  ConversationEntry,
  ConversationList,
  ConversationMessage,
  ImportOutcome,
} from './conversation-list.ts';

/**
 * Schema step of the session store: each person's conversations as a client lists them (title,
 * times, a tombstone once deleted). The messages are the turns; this only names and orders them.
 */
export const CONVERSATION_LIST_MIGRATION = `CREATE TABLE conversation_list (
     channel TEXT NOT NULL,
     conversation_id TEXT NOT NULL,
     owner TEXT NOT NULL,
     title TEXT NOT NULL,
     renamed INTEGER NOT NULL DEFAULT 0,
     created_at INTEGER NOT NULL,
     updated_at INTEGER NOT NULL,
     deleted_at INTEGER,
     PRIMARY KEY (channel, conversation_id)
   ) WITHOUT ROWID;
   CREATE INDEX conversation_list_by_owner ON conversation_list (channel, owner, updated_at);`;

/**
 * Schema step: the owner index without `updated_at`. Every turn moves its conversation's
 * `updated_at` (`touch`), and with the time in the index that moved the index entry too: a
 * quarter of a WAL page per turn under bench:gateway. A list read sorts one person's
 * conversations instead (`ORDER BY updated_at DESC, conversation_id DESC`, the order the old
 * index gave). Rebuilds only this index, one entry per conversation.
 */
export const CONVERSATION_LIST_OWNER_INDEX_MIGRATION = `DROP INDEX conversation_list_by_owner;
   CREATE INDEX conversation_list_by_owner ON conversation_list (channel, owner);`;

interface ListRow {
  channel: string;
  conversation_id: string;
  owner: string;
  title: string;
  renamed: number;
  created_at: number;
  updated_at: number;
  deleted_at: number | null;
}

interface MessageRow {
  seq: number;
  intent_id: string;
  user_text: string;
  reply_text: string;
  outcome: string;
  reply_id: string | null;
  created_at: number;
}

/** How the session store runs this list's statements: writes in its group commit, reads after it. */
export interface ConversationListAccess {
  write<R>(operation: () => R): Promise<R>;
  /** A write whose only change is its last statement's (see `SessionWriteQueue.writeOne`). */
  writeOne<R>(operation: () => R): Promise<R>;
  /** Commits queued writes so a read sees them. */
  settled(): void;
  /** Called after turns were stored outside `appendTurn` (an import): cached history is stale. */
  historyChanged(): void;
}

function toEntry(row: ListRow): ConversationEntry {
  return {
    channel: row.channel,
    conversationId: row.conversation_id,
    owner: row.owner,
    title: row.title,
    renamed: row.renamed === 1,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    ...(row.deleted_at === null ? {} : { deletedAt: row.deleted_at }),
  };
}

/** What claim, touch and rename return of the row they changed, in this order (see `listedEntry`). */
const LISTED_COLUMNS = 'owner, title, renamed, created_at, updated_at';
type ListedRow = [owner: string, title: string, renamed: number, createdAt: number, updatedAt: number];

function arrayRows(statement: StatementSync): StatementSync {
  statement.setReturnArrays(true);
  return statement;
}

/** The entry of a listed conversation from `LISTED_COLUMNS`, or undefined when no row came back. */
function listedEntry(channel: string, conversationId: string, row: unknown): ConversationEntry | undefined {
  if (row === undefined) return undefined;
  const [owner, title, renamed, createdAt, updatedAt] = row as ListedRow;
  return { channel, conversationId, owner, title, renamed: renamed === 1, createdAt, updatedAt };
}

// A conversation's turns: its key, or a later generation of it (`<key>#<n>`, after `/new`). The
// range keeps the lookup on the (conversation_key, seq) index.
const CONVERSATION_TURNS = `(conversation_key = :key OR (conversation_key > :key || '#' AND conversation_key < :key || '$'))`;

export function createSqliteConversationList(
  database: DatabaseSync,
  access: ConversationListAccess,
): ConversationList & { forgetOwners(owners: readonly { channel: string; owner: string }[]): number } {
  const select = database.prepare(
    'SELECT * FROM conversation_list WHERE channel = :channel AND conversation_id = :conversationId',
  );
  const list = database.prepare(
    `SELECT * FROM conversation_list WHERE channel = :channel AND owner = :owner AND deleted_at IS NULL
       ORDER BY updated_at DESC, conversation_id DESC LIMIT :limit`,
  );
  const insert = database.prepare(
    `INSERT INTO conversation_list (channel, conversation_id, owner, title, renamed, created_at, updated_at)
       VALUES (:channel, :conversationId, :owner, :title, :renamed, :createdAt, :updatedAt)`,
  );
  // The writes of every message (claim, touch) and rename bind positional parameters, not named
  // ones (node:sqlite looks each name up on every run; plain `?`, as Node 22 binds positional
  // values to no other kind), and return the changed row as an array
  // of what the caller does not know already (`LISTED_COLUMNS`): 10.4 → 6.3 µs a touch in
  // isolation (load 5). Each leaves the row listed, so it has no `deleted_at`.
  // One statement per message: lists the conversation, or marks it active and lists a deleted one
  // again (a new title then), and returns the row. Another owner's row fails the `WHERE`: nothing
  // changes and no row comes back. (The SET expressions all read the row as it was.)
  const claim = arrayRows(
    database.prepare(
      `INSERT INTO conversation_list (channel, conversation_id, owner, title, renamed, created_at, updated_at)
         VALUES (?, ?, ?, ?, 0, ?, ?)
       ON CONFLICT (channel, conversation_id) DO UPDATE SET
         updated_at = MAX(updated_at, excluded.updated_at), deleted_at = NULL,
         title = CASE WHEN deleted_at IS NULL THEN title ELSE excluded.title END,
         renamed = CASE WHEN deleted_at IS NULL THEN renamed ELSE 0 END
       WHERE owner = excluded.owner
       RETURNING ${LISTED_COLUMNS}`,
    ),
  );
  // Returns the row it moved: none when the conversation is not listed or deleted.
  const touch = arrayRows(
    database.prepare(
      `UPDATE conversation_list SET updated_at = MAX(updated_at, ?)
         WHERE channel = ? AND conversation_id = ? AND deleted_at IS NULL
       RETURNING ${LISTED_COLUMNS}`,
    ),
  );
  const rename = arrayRows(
    database.prepare(
      `UPDATE conversation_list SET title = ?, renamed = 1
         WHERE channel = ? AND conversation_id = ? AND owner = ? AND deleted_at IS NULL
       RETURNING ${LISTED_COLUMNS}`,
    ),
  );
  const markDeleted = database.prepare(
    `UPDATE conversation_list SET deleted_at = :at
       WHERE channel = :channel AND conversation_id = :conversationId AND owner = :owner AND deleted_at IS NULL`,
  );
  const forgetOwner = database.prepare('DELETE FROM conversation_list WHERE channel = ? AND owner = ?');
  const hasTurns = database.prepare(`SELECT 1 AS found FROM turns WHERE ${CONVERSATION_TURNS} LIMIT 1`);
  // The answer shown is the one history keeps; its reply id is that of the newest version with
  // the same words (a version chosen again is stored again under its own id). A turn's row holds
  // its first version while its text is unchanged (`t.reply_id`, see TURN_REPLY_ID_MIGRATION).
  const messages = database.prepare(
    `SELECT seq, intent_id, user_text, reply_text, outcome, created_at,
       (SELECT reply_id FROM (
          SELECT v.reply_id, v.created_at FROM reply_versions AS v WHERE v.channel = t.channel
            AND v.intent_id = t.intent_id AND v.reply_text = t.reply_text
          UNION ALL SELECT t.reply_id, t.created_at WHERE t.reply_id IS NOT NULL)
        ORDER BY created_at DESC LIMIT 1) AS reply_id
     FROM turns AS t WHERE ${CONVERSATION_TURNS} AND kind = 'turn' AND seq < :before
     ORDER BY seq DESC LIMIT :limit`,
  );
  const insertTurn = database.prepare(
    `INSERT INTO turns (channel, intent_id, conversation_key, user_id, user_text, reply_text, outcome, created_at)
       VALUES (?, ?, ?, ?, ?, ?, 'ok', ?) ON CONFLICT (channel, intent_id) DO NOTHING`,
  );
  const entryOf = (row: unknown) => (row === undefined ? undefined : toEntry(row as ListRow));
  const find = (channel: string, conversationId: string) => entryOf(select.get({ channel, conversationId }));

  return {
    async list({ channel, owner, limit }) {
      access.settled();
      const rows = list.all({
        channel,
        owner,
        limit: Math.max(0, Math.floor(limit)),
      }) as unknown as ListRow[];
      return rows.map(toEntry);
    },
    async get({ channel, conversationId }) {
      access.settled();
      return find(channel, conversationId);
    },
    claim({ channel, conversationId, owner, title, at }) {
      return access.writeOne(() =>
        listedEntry(channel, conversationId, claim.get(channel, conversationId, owner, title, at, at)),
      );
    },
    touch({ channel, conversationId, at }) {
      return access.writeOne(() =>
        listedEntry(channel, conversationId, touch.get(at, channel, conversationId)),
      );
    },
    rename({ channel, conversationId, owner, title }) {
      return access.writeOne(() =>
        listedEntry(channel, conversationId, rename.get(title, channel, conversationId, owner)),
      );
    },
    markDeleted({ channel, conversationId, owner, at }) {
      return access.writeOne(() => markDeleted.run({ channel, conversationId, owner, at }).changes !== 0);
    },
    async messages({ channel, conversationId, limit, before }) {
      access.settled();
      const bounded = Math.max(1, Math.floor(limit));
      const rows = messages.all({
        key: `${channel}:${conversationId}`,
        before: before ?? Number.MAX_SAFE_INTEGER,
        limit: bounded + 1,
      }) as unknown as MessageRow[];
      const more = rows.length > bounded;
      return { messages: rows.slice(0, bounded).reverse().map(toMessage), more };
    },
    async importConversation(options) {
      const outcome = await access.write((): ImportOutcome => {
        const { channel, conversationId, owner } = options;
        const existing = find(channel, conversationId);
        if (existing !== undefined && existing.owner !== owner) return 'foreign';
        if (existing?.deletedAt !== undefined) return 'deleted';
        if (existing !== undefined) return 'present';
        insert.run({
          channel,
          conversationId,
          owner,
          title: options.title,
          renamed: options.renamed ? 1 : 0,
          createdAt: options.createdAt,
          updatedAt: options.updatedAt,
        });
        const key = `${channel}:${conversationId}`;
        // The gateway's own turns are the history when it has any (the browser talked to it);
        // the browser's copy fills in only a conversation the gateway holds nothing of.
        if (hasTurns.get({ key }) !== undefined) return 'imported';
        for (const exchange of options.exchanges)
          insertTurn.run(
            channel,
            exchange.intentId,
            key,
            options.userId,
            exchange.userText,
            exchange.replyText,
            exchange.createdAt,
          );
        return 'imported';
      });
      if (outcome === 'imported') access.historyChanged();
      return outcome;
    },
    forgetOwners(owners) {
      return owners.reduce(
        (sum, { channel, owner }) => sum + Number(forgetOwner.run(channel, owner).changes),
        0,
      );
    },
  };
}

function toMessage(row: MessageRow): ConversationMessage {
  return {
    seq: row.seq,
    intentId: row.intent_id,
    userText: row.user_text,
    replyText: row.reply_text,
    outcome: row.outcome as ConversationMessage['outcome'],
    ...(row.reply_id === null ? {} : { replyId: row.reply_id }),
    createdAt: row.created_at,
  };
}
