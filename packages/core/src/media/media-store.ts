import { createHash } from 'node:crypto';
import { mkdir, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

export interface StoredMedia {
  /** sha256 of the bytes, hex: the file's name, so the same bytes are stored once. */
  hash: string;
  path: string;
}

export interface MediaStore {
  put(bytes: Uint8Array): Promise<StoredMedia>;
  /** Removes files older than the retention; returns how many went. */
  sweep(now: number): Promise<number>;
}

export interface FileMediaStoreOptions {
  directory: string;
  retentionDays: number;
}

/**
 * Media on disk under `<dataDir>/media`, named by content hash, readable by the gateway's user
 * only (0700 directory, 0600 files). Nothing here serves files; see docs/media.md.
 */
export function createFileMediaStore(options: FileMediaStoreOptions): MediaStore {
  const retentionMs = options.retentionDays * 24 * 60 * 60 * 1000;
  let ready: Promise<unknown> | undefined;
  return {
    async put(bytes) {
      ready ??= mkdir(options.directory, { recursive: true, mode: 0o700 });
      await ready;
      const hash = createHash('sha256').update(bytes).digest('hex');
      const path = join(options.directory, hash);
      // `wx`: an existing file already holds these bytes, so a second write is skipped.
      await writeFile(path, bytes, { mode: 0o600, flag: 'wx' }).catch((error: NodeJS.ErrnoException) => {
        if (error.code !== 'EEXIST') throw error;
      });
      return { hash, path };
    },
    async sweep(now) {
      const names = await readdir(options.directory).catch(() => [] as string[]);
      let removed = 0;
      for (const name of names) {
        const path = join(options.directory, name);
        const info = await stat(path).catch(() => undefined);
        if (info && now - info.mtimeMs > retentionMs) {
          await rm(path, { force: true });
          removed += 1;
        }
      }
      return removed;
    },
  };
}
