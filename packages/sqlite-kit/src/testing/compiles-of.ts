import type { DatabaseSync } from 'node:sqlite';

// SQLite's action codes for BEGIN/COMMIT/ROLLBACK and SAVEPOINT/RELEASE: `exec` compiles those on
// every call by design, so they are left out of the count.
const SQLITE_TRANSACTION = 22;
const SQLITE_SAVEPOINT = 32;

/**
 * How many times SQLite asked the authorizer while `work` ran a second time, transaction control
 * aside: it is asked only while a statement compiles, never while it runs, so a statement
 * prepared once and run again counts 0, and one SQLite throws away and compiles again on every
 * run (see the `+?` comments in the stores) counts several per run. `work` runs once uncounted
 * first: setting an authorizer expires every prepared statement of the connection.
 */
export function compilesOf(database: DatabaseSync, work: () => void): number {
  let compiles = 0;
  database.setAuthorizer((action) => {
    if (action !== SQLITE_TRANSACTION && action !== SQLITE_SAVEPOINT) compiles += 1;
    return 0;
  });
  try {
    work();
    compiles = 0;
    work();
  } finally {
    database.setAuthorizer(null);
  }
  return compiles;
}
