// node packages/queue-sqlite/bench/enqueue-statements-bench.ts [--completed 20000] [--conversations 200] [--turns 4000]
//
// What one gateway turn costs the job file: a plain insert (the memory extraction, its own id)
// and a debounced enqueue (the conversation's summary), each timed alone and counted in WAL
// frames (pages written per commit), beside completed jobs as `pnpm bench:gateway` leaves them.
// The statements are the store's own (`prepareJobStatements`), on a connection opened as the
// store opens it, with the WAL checkpoint off so its growth is exactly the pages each commit wrote.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { openSqliteDatabase } from '@nexus/sqlite-kit';
import { prepareJobStatements } from '../src/sqlite-job-statements.ts';
import { MIGRATIONS } from '../src/sqlite-job-store.ts';

const { values } = parseArgs({
  options: {
    completed: { type: 'string', default: '20000' },
    conversations: { type: 'string', default: '200' },
    turns: { type: 'string', default: '4000' },
  },
});
const completedJobs = Number(values.completed);
const conversations = Number(values.conversations);
const turns = Number(values.turns);
const IDLE_MS = 30 * 60_000;

const dir = mkdtempSync(join(tmpdir(), 'enqueue-statements-bench-'));
const path = join(dir, 'jobs.sqlite');
const database = openSqliteDatabase({
  path,
  busyTimeoutMs: 5000,
  migrations: MIGRATIONS,
  storeName: 'job queue',
});
const statements = prepareJobStatements(database);
const pageSize = (database.prepare('PRAGMA page_size').get() as { page_size: number }).page_size;

const extractionPayload = (turn: number) =>
  JSON.stringify({
    userId: `web:person-${turn % conversations}`,
    sessionId: `web:person-${turn % conversations}:chat`,
    channel: 'web',
    conversationId: 'chat',
    conversationKind: 'direct',
    intentId: randomUUID(),
    userText: `bench c${turn % conversations} turn ${turn}: a message of about the usual length`,
    replyText: `Echo: bench c${turn % conversations} turn ${turn}: a message of about the usual length`,
    occurredAt: Date.now(),
  });
const summaryPayload = (turn: number) =>
  JSON.stringify({
    userId: `web:person-${turn % conversations}`,
    sessionId: `web:person-${turn % conversations}:chat`,
    lastIntentId: randomUUID(),
  });
const values9 = (name: string, id: string, payload: string, runAt: number, now: number) => [
  name,
  id,
  payload,
  runAt,
  3,
  'exponential',
  5000,
  now,
  null,
];

// The file as a gateway leaves it: completed extractions, one waiting summary per conversation.
let now = Date.now();
database.exec('BEGIN');
for (let index = 0; index < completedJobs; index += 1) {
  statements.insert.run(...values9('memory.extract', randomUUID(), extractionPayload(index), now, now));
}
database.exec(`UPDATE jobs SET status = 'completed', attempts_started = 1, finished_at = ${now}`);
for (let index = 0; index < conversations; index += 1) {
  statements.debounce.get(
    ...values9('memory.summarize', randomUUID(), summaryPayload(index), now + IDLE_MS, now),
    `web:person-${index}:chat`,
  );
}
database.exec('COMMIT');
database.exec('PRAGMA wal_checkpoint(TRUNCATE)');
database.exec('PRAGMA wal_autocheckpoint = 0');

const walPath = `${path}-wal`;
const walBytes = () => {
  try {
    return statSync(walPath).size;
  } catch {
    return 0;
  }
};

const variants = {
  twoColumns: database.prepare(
    `INSERT INTO jobs (name, id, payload, status, run_at, max_attempts, backoff_type, backoff_delay_ms, created_at, traceparent, debounce_key)
     VALUES (?, ?, ?, 'waiting', ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (name, debounce_key) WHERE debounce_key IS NOT NULL AND status = 'waiting' AND attempts_started = 0
     DO UPDATE SET payload = excluded.payload, run_at = excluded.run_at
     RETURNING id`,
  ),
  ignore: database.prepare(
    `INSERT INTO jobs (name, id, payload, status, run_at, max_attempts, backoff_type, backoff_delay_ms, created_at, traceparent, debounce_key)
     VALUES (?, ?, ?, 'waiting', ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (name, debounce_key) WHERE debounce_key IS NOT NULL AND status = 'waiting' AND attempts_started = 0
     DO NOTHING`,
  ),
};

type Step = (turn: number) => void;
const steps: Record<string, Step> = {
  insert: (turn) => {
    statements.insert.run(...values9('memory.extract', randomUUID(), extractionPayload(turn), now, now));
  },
  debounce: (turn) => {
    statements.debounce.get(
      ...values9('memory.summarize', randomUUID(), summaryPayload(turn), now + IDLE_MS, now),
      `web:person-${turn % conversations}:chat`,
    );
  },
  // Variants weighed against the debounced upsert (not the store's statements).
  'debounce, payload and run_at only': (turn) => {
    variants.twoColumns.get(
      ...values9('memory.summarize', randomUUID(), summaryPayload(turn), now + IDLE_MS, now),
      `web:person-${turn % conversations}:chat`,
    );
  },
  'debounce, insert or ignore': (turn) => {
    variants.ignore.run(
      ...values9('memory.summarize', randomUUID(), summaryPayload(turn), now + IDLE_MS, now),
      `web:person-${turn % conversations}:chat`,
    );
  },
};

/** Times `step` alone (BEGIN and COMMIT outside the clock), one commit per turn. */
function measure(label: string, step: Step): void {
  const times: number[] = [];
  let frames = 0;
  for (let turn = 0; turn < turns; turn += 1) {
    now += 3;
    database.exec('BEGIN');
    const started = process.hrtime.bigint();
    step(turn);
    times.push(Number(process.hrtime.bigint() - started) / 1000);
    const before = walBytes();
    database.exec('COMMIT');
    frames += (walBytes() - before) / (pageSize + 24);
    // Extractions finish soon after their turn: keep them out of the waiting jobs, as the gateway does.
    database.exec(`UPDATE jobs SET status = 'completed', attempts_started = 1, finished_at = ${now}
      WHERE name = 'memory.extract' AND status = 'waiting'`);
    if (turn % 200 === 0) database.exec('PRAGMA wal_checkpoint(TRUNCATE)');
  }
  times.sort((a, b) => a - b);
  const median = times[Math.floor(times.length / 2)] ?? 0;
  const mean = times.reduce((sum, time) => sum + time, 0) / times.length;
  const p90 = times[Math.floor(times.length * 0.9)] ?? 0;
  console.log(
    JSON.stringify({
      statement: label,
      completed_jobs: completedJobs,
      median_us: Math.round(median * 10) / 10,
      mean_us: Math.round(mean * 10) / 10,
      p90_us: Math.round(p90 * 10) / 10,
      wal_frames_per_commit: Math.round((frames / turns) * 100) / 100,
    }),
  );
}

// Warm the statements and the page cache, then time each alone.
for (const step of Object.values(steps)) for (let turn = 0; turn < 500; turn += 1) step(turn);
for (const [label, step] of Object.entries(steps)) measure(label, step);
measure('insert+debounce', (turn) => {
  steps.insert?.(turn);
  steps.debounce?.(turn);
});
/** The b-trees whose pages one commit of `step` wrote (read from the WAL's frame headers). */
function pagesWritten(label: string, step: Step): void {
  const written: string[] = [];
  for (let turn = 0; turn < 5; turn += 1) {
    database.exec('PRAGMA wal_checkpoint(TRUNCATE)');
    now += 3;
    database.exec('BEGIN');
    step(turn);
    database.exec('COMMIT');
    const wal = readFileSync(walPath);
    const pages: number[] = [];
    for (let offset = 32; offset + 24 <= wal.length; offset += pageSize + 24)
      pages.push(wal.readUInt32BE(offset));
    const names = pages.map(
      (page) =>
        (
          database.prepare('SELECT name FROM dbstat WHERE pageno = ?').get(page) as
            | { name: string }
            | undefined
        )?.name ?? `page ${page}`,
    );
    written.push(names.join(', '));
  }
  console.log(JSON.stringify({ statement: label, pages_per_commit: written }));
}
pagesWritten('insert', steps.insert as Step);
pagesWritten('debounce', steps.debounce as Step);
pagesWritten('debounce, insert or ignore', steps['debounce, insert or ignore'] as Step);
database.close();
rmSync(dir, { recursive: true, force: true });
