import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createFileUpdateStore } from './file-update-store.ts';

let directory: string | undefined;
afterEach(async () => {
  if (directory) await rm(directory, { recursive: true, force: true });
  directory = undefined;
});

describe('createFileUpdateStore', () => {
  it('keeps the mark across stores, in an owner-only file (0600) whatever the umask', async () => {
    directory = await mkdtemp(join(tmpdir(), 'nexus-telegram-updates-'));
    const path = join(directory, 'data', 'telegram-updates.json');
    const previous = process.umask(0o022);
    try {
      await createFileUpdateStore({ path }).setLastUpdateId(41);
      await createFileUpdateStore({ path }).setLastUpdateId(42);
    } finally {
      process.umask(previous);
    }
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    expect(await createFileUpdateStore({ path }).lastUpdateId()).toBe(42);
  });
});
