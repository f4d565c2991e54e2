// The one way Nexus opens SQLite (node:sqlite): pragmas, owner-only files, numbered migrations
// that refuse a newer file, and write transactions taken at once (BEGIN IMMEDIATE).

export { aloneInTransaction } from './alone-in-transaction.ts';
export { checkpointAndTruncate } from './checkpoint-and-truncate.ts';
export { CommittedCache } from './committed-cache.ts';
export { committedVersionReader, othersCommittedWatcher } from './committed-version.ts';
export { createPrivateFile } from './create-private-file.ts';
export { GroupCommit } from './group-commit.ts';
export { inSavepoint } from './in-savepoint.ts';
export { inTransaction } from './in-transaction.ts';
export { LazyReadTransaction } from './lazy-read-transaction.ts';
export { migrate, type OpenSqliteDatabaseOptions, openSqliteDatabase } from './open-sqlite-database.ts';
export { statementsPerLimit } from './statements-per-limit.ts';
