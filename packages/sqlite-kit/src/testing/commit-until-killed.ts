// A child process for background-checkpoints.int.test.ts: commits one row at a time with the
// checkpoints on their thread and prints each row's number once its commit returned (what a
// store would acknowledge), until the test kills it.
import { inTransaction } from '../in-transaction.ts';
import { openSqliteDatabase } from '../open-sqlite-database.ts';

const path = process.argv[2];
if (!path) throw new Error('usage: commit-until-killed.ts <file>');
const database = openSqliteDatabase({
  path,
  migrations: ['CREATE TABLE rows (n INTEGER PRIMARY KEY, text TEXT NOT NULL)'],
  storeName: 'test store',
  backgroundCheckpoints: true,
});
const insert = database.prepare('INSERT INTO rows (n, text) VALUES (?, ?)');
for (let n = 0; ; n++) {
  inTransaction(database, () => insert.run(n, 'x'.repeat(3_000)));
  process.stdout.write(`${n}\n`);
  // Lets the checkpoint thread's answers in, so checkpoints run while rows are committed.
  if (n % 20 === 0) await new Promise((resolve) => setImmediate(resolve));
}
