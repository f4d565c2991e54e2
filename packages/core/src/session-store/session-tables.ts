import type { DatabaseSync } from 'node:sqlite';
import { checkpointAndTruncate, inTransaction } from '@nexus/sqlite-kit';
import { type ConversationListAccess, createSqliteConversationList } from './sqlite-conversation-list.ts';
import { createSqliteIntentInbox, type SqliteIntentInbox } from './sqlite-intent-inbox.ts';
import { createSqlitePersonActivity, type SqlitePersonActivity } from './sqlite-person-activity.ts';
import { createSqliteReplyVersions, type SqliteReplyVersions } from './sqlite-reply-versions.ts';
import { createSqliteTurnRevisions, type SqliteTurnRevisions } from './sqlite-turn-revisions.ts';
import { createSqliteTurns, INTENT_SEEN, type SqliteTurns } from './sqlite-turns.ts';

/** The session store's tables, each through its own statements over the one connection. */
export interface SessionTables {
  database: DatabaseSync;
  turns: SqliteTurns;
  inbox: SqliteIntentInbox;
  revisions: SqliteTurnRevisions;
  activity: SqlitePersonActivity;
  versions: SqliteReplyVersions;
  conversations: ReturnType<typeof createSqliteConversationList>;
}

/**
 * Prepares every table's statements over the store's connection (migrated already). The
 * conversation list runs its statements through `conversationAccess`, the store's write queue.
 */
export function createSessionTables(
  database: DatabaseSync,
  conversationAccess: ConversationListAccess,
): SessionTables {
  return {
    database,
    turns: createSqliteTurns(database),
    inbox: createSqliteIntentInbox(database, INTENT_SEEN),
    revisions: createSqliteTurnRevisions(database),
    activity: createSqlitePersonActivity(database),
    versions: createSqliteReplyVersions(database),
    conversations: createSqliteConversationList(database, conversationAccess),
  };
}

/**
 * Deletes everything stored of these people in one transaction: their turns, the intake inbox's
 * entries of theirs not answered yet (they are not answered now), the record of their edits and
 * deletes (ids only, but theirs), their activity, their answers' versions and their conversation
 * list. The file is then checkpointed and truncated, so the deleted text leaves the WAL too.
 * Returns how many turns and inbox entries went.
 */
export function forgetPeopleInTables(tables: SessionTables, userIds: readonly string[]): number {
  const deleted = inTransaction(tables.database, () => {
    for (const userId of userIds) {
      tables.revisions.forgetPerson(userId);
      tables.activity.forget(userId);
      tables.versions.forgetPerson(userId);
    }
    // A person id is `<channel>:<platform id>`: their conversation list goes with their turns.
    tables.conversations.forgetOwners(
      userIds.flatMap((userId) => {
        const colon = userId.indexOf(':');
        return colon > 0 ? [{ channel: userId.slice(0, colon), owner: userId.slice(colon + 1) }] : [];
      }),
    );
    return userIds.reduce(
      (sum, userId) => sum + tables.turns.forgetPerson(userId) + tables.inbox.forgetPerson(userId),
      0,
    );
  });
  checkpointAndTruncate(tables.database);
  return deleted;
}

/**
 * Deletes one conversation's turns (every generation of it) written by these people, and the
 * versions of their answers, in one transaction; then checkpoints like `forgetPeopleInTables`.
 * Returns how many turns went.
 */
export function forgetConversationInTables(
  tables: SessionTables,
  conversationKey: string,
  userIds: readonly string[],
): number {
  const deleted = inTransaction(tables.database, () =>
    userIds.reduce((sum, userId) => {
      tables.versions.forgetConversation(userId, conversationKey);
      return sum + tables.turns.forgetConversation(userId, conversationKey);
    }, 0),
  );
  checkpointAndTruncate(tables.database);
  return deleted;
}
