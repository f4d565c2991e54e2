import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openWhatsAppDatabase } from './open-whatsapp-database.ts';
import { createSqliteAuthState } from './sqlite-auth-state.ts';

const writer = fileURLToPath(new URL('./testing/auth-writer-process.ts', import.meta.url));
const BATCH = 1000;
let directory: string;
let path: string;
let child: ChildProcess | undefined;

beforeEach(() => {
  directory = mkdtempSync(join(tmpdir(), 'nexus-wa-crash-'));
  path = join(directory, 'auth.sqlite');
});

afterEach(() => {
  child?.kill('SIGKILL');
  child = undefined;
  rmSync(directory, { recursive: true, force: true });
});

/**
 * Runs the writer and resolves with the last generation it reported once it died. With
 * `killAfter` the test kills it that many generations in; with `crashAtRow` it kills itself.
 */
function runWriter(options: { killAfter?: number; crashAtRow?: number }): Promise<{
  lastReported: number;
  signal: NodeJS.Signals | null;
}> {
  const extra = options.crashAtRow === undefined ? [] : [String(options.crashAtRow)];
  const running = spawn(process.execPath, [writer, path, String(BATCH), ...extra], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  child = running;
  let lastReported = 0;
  let seen = 0;
  return new Promise((resolve, reject) => {
    running.once('error', reject);
    running.once('exit', (_code, signal) => {
      child = undefined;
      resolve({ lastReported, signal });
    });
    running.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
      for (const line of chunk.split('\n')) {
        if (line === '') continue;
        lastReported = Number(line);
        seen += 1;
        if (seen === options.killAfter) {
          // Somewhere in the next generation: building keys, inside the batch, or saving creds.
          setTimeout(() => running.kill('SIGKILL'), Math.floor(Math.random() * 20));
        }
      }
    });
  });
}

/** Reopens the file the way a restarted gateway would and checks nothing is torn. */
async function inspect(): Promise<{ credsGeneration: number; keysGeneration: number }> {
  const database = openWhatsAppDatabase(path);
  try {
    expect(database.prepare('PRAGMA integrity_check').get()).toEqual({ integrity_check: 'ok' });
    const auth = createSqliteAuthState({ database });
    const creds = auth.state.creds;
    expect(creds.registered).toBe(true);
    expect(creds.noiseKey.private).toHaveLength(32);
    expect(creds.signedIdentityKey.public).toHaveLength(32);

    const ids = Array.from({ length: BATCH }, (_, index) => String(index));
    const preKeys = await auth.state.keys.get('pre-key', ids);
    expect(Object.keys(preKeys)).toHaveLength(BATCH);
    const generations = new Set(
      Object.values(preKeys).map((pair) => Buffer.from(pair.public).readUInt32BE(0)),
    );
    // One generation only: a batch is all-or-nothing.
    expect([...generations]).toHaveLength(1);
    for (const [id, pair] of Object.entries(preKeys)) {
      expect(Buffer.from(pair.public).readUInt32BE(4)).toBe(Number(id));
      expect(Buffer.compare(Buffer.from(pair.private), Buffer.from(pair.public).reverse())).toBe(0);
    }
    return { credsGeneration: creds.nextPreKeyId, keysGeneration: [...generations][0] ?? -1 };
  } finally {
    database.close();
  }
}

describe('SQLite auth state under a crash', () => {
  it('a crash in the middle of a key batch leaves the previous batch and creds whole', async () => {
    const { lastReported, signal } = await runWriter({ crashAtRow: 5 * BATCH + 437 });
    expect(signal).toBe('SIGKILL');
    expect(lastReported).toBeGreaterThan(0);
    const { credsGeneration, keysGeneration } = await inspect();
    expect(keysGeneration).toBe(lastReported);
    expect(credsGeneration).toBe(lastReported);
  });

  it('survives SIGKILL at random moments and keeps going from where it was', async () => {
    let previous = 0;
    for (let round = 0; round < 3; round += 1) {
      const { lastReported, signal } = await runWriter({ killAfter: 5 });
      expect(signal).toBe('SIGKILL');
      const { credsGeneration, keysGeneration } = await inspect();
      // Everything reported is durable; creds are saved right after the keys of their generation.
      expect(credsGeneration).toBeGreaterThanOrEqual(lastReported);
      expect([credsGeneration, credsGeneration + 1]).toContain(keysGeneration);
      expect(credsGeneration).toBeGreaterThan(previous);
      previous = credsGeneration;
    }
  });
});
