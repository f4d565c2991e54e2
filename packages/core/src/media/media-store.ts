import { createHash } from 'node:crypto';
import { mkdir, readdir, rm, rmdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

export interface StoredMedia {
  /** sha256 of the bytes, hex: the file's name, so the same bytes are stored once per person. */
  hash: string;
  path: string;
}

export interface MediaStore {
  /** Keeps the bytes for `personId` (the person the turn ran for, after identity resolution). */
  put(bytes: Uint8Array, personId: string): Promise<StoredMedia>;
  /** Deletes every file kept for these person ids; returns how many went. */
  forget(personIds: readonly string[]): Promise<number>;
  /** Removes files older than the retention; returns how many went. */
  sweep(now: number): Promise<number>;
}

export interface FileMediaStoreOptions {
  directory: string;
  retentionDays: number;
}

/**
 * The folder name of a person's media: a hash, so neither a person id (`telegram:123`, a phone
 * number on WhatsApp) nor a character unsafe in a path ever appears on disk.
 */
export function personFolder(personId: string): string {
  return createHash('sha256').update(`nexus-media-person\0${personId}`).digest('hex');
}

/**
 * Media on disk under `<dataDir>/media/<personFolder>/<contentHash>`, readable by the gateway's
 * user only (0700 directories, 0600 files). One folder per person, so forgetting a person removes
 * exactly their files, while the same bytes sent twice by them are stored once. Files of the
 * older flat layout (`<dataDir>/media/<contentHash>`) belong to no one known and are only swept.
 * Nothing here serves files; see docs/media.md.
 */
export function createFileMediaStore(options: FileMediaStoreOptions): MediaStore {
  const retentionMs = options.retentionDays * 24 * 60 * 60 * 1000;
  const write = async (folder: string, path: string, bytes: Uint8Array) => {
    await mkdir(folder, { recursive: true, mode: 0o700 });
    // `wx`: an existing file already holds these bytes, so a second write is skipped.
    await writeFile(path, bytes, { mode: 0o600, flag: 'wx' }).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'EEXIST') throw error;
    });
  };
  return {
    async put(bytes, personId) {
      const folder = join(options.directory, personFolder(personId));
      const hash = createHash('sha256').update(bytes).digest('hex');
      const path = join(folder, hash);
      await write(folder, path, bytes).catch(async (error: NodeJS.ErrnoException) => {
        // The sweep removed the folder just as it emptied: make it again, once.
        if (error.code !== 'ENOENT') throw error;
        await write(folder, path, bytes);
      });
      return { hash, path };
    },
    async forget(personIds) {
      let removed = 0;
      for (const personId of new Set(personIds)) {
        const folder = join(options.directory, personFolder(personId));
        removed += (await readdir(folder).catch(() => [] as string[])).length;
        await rm(folder, { recursive: true, force: true });
      }
      return removed;
    },
    async sweep(now) {
      const expired = async (path: string) => {
        const info = await stat(path).catch(() => undefined);
        if (!info?.isFile() || now - info.mtimeMs <= retentionMs) return 0;
        await rm(path, { force: true });
        return 1;
      };
      const entries = await readdir(options.directory, { withFileTypes: true }).catch(() => []);
      let removed = 0;
      for (const entry of entries) {
        const path = join(options.directory, entry.name);
        if (!entry.isDirectory()) {
          removed += await expired(path);
          continue;
        }
        for (const name of await readdir(path).catch(() => [] as string[])) {
          removed += await expired(join(path, name));
        }
        // Fails while the folder still holds a file, which is what should happen.
        await rmdir(path).catch(() => undefined);
      }
      return removed;
    },
  };
}
