import { execFile } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startGatewayProcess } from '../testing/gateway-process.ts';

const CLI = fileURLToPath(new URL('../cli.ts', import.meta.url));
let root: string;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'nexus-modes-'));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

async function modesUnder(directory: string): Promise<Record<string, string>> {
  const modes: Record<string, string> = {};
  modes['.'] = ((await stat(directory)).mode & 0o777).toString(8);
  for (const entry of await readdir(directory, { recursive: true })) {
    modes[entry] = ((await stat(join(directory, entry))).mode & 0o777).toString(8);
  }
  return modes;
}

function doctor(dataDir: string, ...extra: string[]): Promise<string> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [CLI, 'doctor', ...extra],
      { env: { PATH: process.env.PATH ?? '', NEXUS_DATA_DIR: dataDir }, timeout: 20_000 },
      (_error, stdout) => resolve(stdout),
    );
  });
}

describe('the data directory', () => {
  it('is created 0700 with every file in it 0600, SQLite -wal and -shm included, under a permissive umask', async () => {
    const dataDir = join(root, 'fresh', 'data');
    // The test runner's umask (usually 022) is what the gateway process inherits.
    const gateway = await startGatewayProcess({ NEXUS_DATA_DIR: dataDir, NEXUS_LOG_LEVEL: 'info' });
    let modes: Record<string, string>;
    try {
      modes = await modesUnder(dataDir);
    } finally {
      await gateway.stop();
    }
    expect(Object.keys(modes)).toEqual(
      expect.arrayContaining([
        'web-token',
        'sessions.sqlite',
        'access.sqlite',
        'jobs.sqlite',
        'memory.sqlite',
      ]),
    );
    expect(Object.keys(modes).some((name) => name.endsWith('-wal'))).toBe(true);
    const expected = Object.fromEntries(
      Object.keys(modes).map((name) => [name, name === '.' ? '700' : '600']),
    );
    expect(modes).toEqual(expected);
  });

  it('nexus doctor reports loose modes, --fix tightens them, and the stores still open', async () => {
    const dataDir = join(root, 'old');
    await mkdir(join(dataDir, 'models'), { recursive: true });
    const database = new DatabaseSync(join(dataDir, 'sessions.sqlite'));
    database.exec("CREATE TABLE kept (value TEXT); INSERT INTO kept VALUES ('still here')");
    database.close();
    await writeFile(join(dataDir, 'web-token'), 'abcdefghijklmnopqrstuvwx\n');
    await writeFile(join(dataDir, 'models', 'model.onnx'), 'weights');
    await chmod(dataDir, 0o755);
    await chmod(join(dataDir, 'models'), 0o755);
    for (const file of ['sessions.sqlite', 'web-token', 'models/model.onnx'])
      await chmod(join(dataDir, file), 0o644);

    const report = await doctor(dataDir);
    expect(report).toMatch(/! data permissions: other users can read or change .*sessions\.sqlite \(644\)/);
    expect(report).toContain(`fix: run \`nexus doctor --fix\` or \`chmod -R go-rwx '${dataDir}'\``);

    const fixed = await doctor(dataDir, '--fix');
    expect(fixed).toMatch(/✓ data permissions: fixed: other users can no longer read/);
    expect(await modesUnder(dataDir)).toEqual({
      '.': '700',
      models: '700',
      'models/model.onnx': '600',
      'sessions.sqlite': '600',
      'web-token': '600',
    });
    expect(await doctor(dataDir)).toContain(`✓ data permissions: only the owner can read ${dataDir}`);
    const reopened = new DatabaseSync(join(dataDir, 'sessions.sqlite'));
    expect(reopened.prepare('SELECT value FROM kept').get()).toEqual({ value: 'still here' });
    reopened.close();
  });
});
