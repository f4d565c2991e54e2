// Child process for the crash tests: writes signal-key batches and creds in a tight loop, each
// tagged with a generation number, and reports every finished generation on stdout until killed.
// With a third argument it SIGKILLs itself right after that many key rows were written, i.e. in
// the middle of a `keys.set` batch, the worst moment for a crash.
import type { SQLInputValue, StatementResultingChanges } from 'node:sqlite';
import { openWhatsAppDatabase } from '../open-whatsapp-database.ts';
import { createSqliteAuthState } from '../sqlite-auth-state.ts';

const [path, batchSizeText, crashAtRowText] = process.argv.slice(2);
if (!path) throw new Error('usage: auth-writer-process.ts <path> [batchSize] [crashAtRow]');
const batchSize = Number(batchSizeText ?? '1000');
const crashAtRow = crashAtRowText === undefined ? undefined : Number(crashAtRowText);
const database = openWhatsAppDatabase(path);

if (crashAtRow !== undefined) {
  const prepare = database.prepare.bind(database);
  let rows = 0;
  database.prepare = (sql: string) => {
    const statement = prepare(sql);
    if (!sql.startsWith('INSERT INTO wa_keys')) return statement;
    const run = statement.run.bind(statement) as (
      ...parameters: SQLInputValue[]
    ) => StatementResultingChanges;
    const counted = (...parameters: SQLInputValue[]) => {
      const result = run(...parameters);
      rows += 1;
      if (rows === crashAtRow) process.kill(process.pid, 'SIGKILL');
      return result;
    };
    statement.run = counted as typeof statement.run;
    return statement;
  };
}

const auth = createSqliteAuthState({ database });
let generation = auth.state.creds.nextPreKeyId;

for (;;) {
  generation += 1;
  const preKeys: Record<string, { public: Buffer; private: Buffer }> = {};
  for (let index = 0; index < batchSize; index += 1) {
    const tag = Buffer.alloc(32);
    tag.writeUInt32BE(generation, 0);
    tag.writeUInt32BE(index, 4);
    preKeys[String(index)] = { public: tag, private: Buffer.from(tag).reverse() };
  }
  await auth.state.keys.set({ 'pre-key': preKeys });
  auth.state.creds.nextPreKeyId = generation;
  auth.state.creds.registered = true;
  auth.saveCreds();
  process.stdout.write(`${generation}\n`);
}
