/**
 * node packages/channel-discord/bench/taken-messages-bench.ts — the cost the taken-message record
 * adds to Discord's intake path: one `remember` (a prepared INSERT whose trigger keeps the
 * 20 000-row and 30-day bounds) per message handed to core, on a real file in a temp directory
 * (WAL, synchronous=NORMAL, as the adapter opens it) and in `:memory:`. 50 000 inserts, so the
 * row bound is deleting a row on every insert for the last 30 000; then 20 000 lookups (`get`,
 * what a delete costs). The last line is JSON.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { IntentInput } from '@nexus/protocol';
import { percentile, printTable, round } from '../../../bench/bench-stats.ts';
import { openDiscordDatabase } from '../src/open-discord-database.ts';
import { MAX_TAKEN_MESSAGES, TakenMessages } from '../src/taken-messages.ts';

const INSERTS = 50_000;
const LOOKUPS = 20_000;

function intentOf(messageId: string, n: number): IntentInput {
  return {
    id: messageId,
    channel: 'discord',
    conversation: { id: String(1_000_000_000_000_000n + BigInt(n % 50)), kind: 'group' },
    sender: { platformId: String(2_000_000_000_000_000n + BigInt(n % 500)) },
    userId: `discord:${n % 500}`,
    text: 'x',
    mentionsAssistant: true,
    receivedAt: new Date().toISOString(),
  };
}

function measure(path: string) {
  const database = openDiscordDatabase(path);
  const taken = new TakenMessages(database, { now: Date.now });
  const insertUs: number[] = [];
  const first = 1_300_000_000_000_000_000n;
  const started = performance.now();
  for (let n = 0; n < INSERTS; n++) {
    const id = String(first + BigInt(n));
    const before = performance.now();
    taken.remember(id, intentOf(id, n));
    insertUs.push((performance.now() - before) * 1000);
  }
  const insertSeconds = (performance.now() - started) / 1000;
  const lookupUs: number[] = [];
  for (let n = 0; n < LOOKUPS; n++) {
    // Half hits (the kept newest), half misses (dropped by the bound).
    const id = String(first + BigInt(INSERTS - 1 - ((n * 7919) % (2 * MAX_TAKEN_MESSAGES))));
    const before = performance.now();
    taken.get(id);
    lookupUs.push((performance.now() - before) * 1000);
  }
  const rows = (database.prepare('SELECT count(*) AS n FROM discord_taken_message').get() as { n: number }).n;
  database.close();
  return {
    inserts_per_s: Math.round(INSERTS / insertSeconds),
    insert_p50_us: round(percentile(insertUs, 50), 1),
    insert_p99_us: round(percentile(insertUs, 99), 1),
    get_p50_us: round(percentile(lookupUs, 50), 1),
    get_p99_us: round(percentile(lookupUs, 99), 1),
    rows,
  };
}

const folder = mkdtempSync(join(tmpdir(), 'nexus-discord-taken-bench-'));
try {
  const filePath = join(folder, 'discord-cursor.sqlite');
  const file = measure(filePath);
  const fileBytes = statSync(filePath).size;
  const memory = measure(':memory:');
  printTable([
    ['file: inserts/s', file.inserts_per_s],
    ['file: insert p50 / p99 (µs)', `${file.insert_p50_us} / ${file.insert_p99_us}`],
    ['file: get p50 / p99 (µs)', `${file.get_p50_us} / ${file.get_p99_us}`],
    ['file: rows kept', file.rows],
    ['file: size after checkpoint (KiB)', Math.round(fileBytes / 1024)],
    [':memory: inserts/s', memory.inserts_per_s],
    [':memory: insert p50 / p99 (µs)', `${memory.insert_p50_us} / ${memory.insert_p99_us}`],
    [':memory: get p50 / p99 (µs)', `${memory.get_p50_us} / ${memory.get_p99_us}`],
  ]);
  process.stdout.write(`${JSON.stringify({ file: { ...file, bytes: fileBytes }, memory })}\n`);
} finally {
  rmSync(folder, { recursive: true, force: true });
}
