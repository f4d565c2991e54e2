import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { UpdateStore } from './update-store.ts';

/**
 * Telegram picks the next `update_id` at random after a week without updates, so an older mark
 * could hide every new update; such a mark is ignored.
 */
const DEFAULT_MAX_AGE_MS = 6 * 24 * 60 * 60 * 1000;

export interface FileUpdateStoreOptions {
  /** JSON file holding `{ lastUpdateId, savedAt }`; its folder is created when missing. */
  path: string;
  now?: () => number;
  maxAgeMs?: number;
}

/**
 * An UpdateStore in one small JSON file. Writes go to a temporary file renamed over the old one
 * (a crash never leaves half a file), and bursts of marks collapse into one write per round.
 */
export function createFileUpdateStore(options: FileUpdateStoreOptions): UpdateStore {
  const now = options.now ?? Date.now;
  const maxAgeMs = options.maxAgeMs ?? DEFAULT_MAX_AGE_MS;
  let highest: number | undefined;
  let written: number | undefined;
  let writing: Promise<void> | undefined;

  const writeLoop = async (): Promise<void> => {
    // The mark is only an offset, but it lives in the data directory beside people and keys:
    // owner-only like every other file there.
    await mkdir(dirname(options.path), { recursive: true, mode: 0o700 });
    while (highest !== undefined && highest !== written) {
      const value = highest;
      const temporary = `${options.path}.${process.pid}.tmp`;
      await writeFile(
        temporary,
        JSON.stringify({ lastUpdateId: value, savedAt: new Date(now()).toISOString() }),
        { mode: 0o600 },
      );
      await rename(temporary, options.path);
      written = value;
    }
  };

  return {
    async lastUpdateId() {
      let text: string;
      try {
        text = await readFile(options.path, 'utf8');
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
        throw error;
      }
      const stored = JSON.parse(text) as { lastUpdateId?: unknown; savedAt?: unknown };
      if (typeof stored.lastUpdateId !== 'number' || !Number.isInteger(stored.lastUpdateId)) return undefined;
      const savedAt = typeof stored.savedAt === 'string' ? Date.parse(stored.savedAt) : Number.NaN;
      if (!(now() - savedAt <= maxAgeMs)) return undefined;
      highest = Math.max(highest ?? stored.lastUpdateId, stored.lastUpdateId);
      written ??= stored.lastUpdateId;
      return stored.lastUpdateId;
    },
    async setLastUpdateId(id) {
      highest = Math.max(highest ?? id, id);
      while (writing) await writing;
      if (highest === written) return;
      writing = writeLoop().finally(() => {
        writing = undefined;
      });
      await writing;
    },
  };
}
