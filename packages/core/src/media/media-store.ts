import { createHash } from 'node:crypto';
import { mkdir, readdir, rm, rmdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { NexusError } from '@nexus/protocol';
import { createMediaUsage } from './media-usage.ts';

const DAY_MS = 24 * 60 * 60 * 1000;

export interface StoredMedia {
  /** sha256 of the bytes, hex: the file's name, so the same bytes are stored once per person. */
  hash: string;
  path: string;
}

export interface MediaStore {
  /**
   * Keeps the bytes for `personId` (the person the turn ran for, after identity resolution).
   * Rejects with `rate_limited` when it would take the person past their daily quota; makes room
   * under the folder's total cap by removing the oldest files.
   */
  put(bytes: Uint8Array, personId: string): Promise<StoredMedia>;
  /** Bytes `personId` may still have kept in the last 24 hours (Infinity without a quota). */
  bytesLeftToday(personId: string): Promise<number>;
  /** Deletes every file kept for these person ids; returns how many went. */
  forget(personIds: readonly string[]): Promise<number>;
  /** Removes files older than the retention; returns how many went. */
  sweep(now: number): Promise<number>;
}

export interface FileMediaStoreOptions {
  directory: string;
  retentionDays: number;
  /** Bytes one person's files may add in any 24 hours; unset: no per-person quota. */
  maxBytesPerPersonPerDay?: number;
  /** Bytes the whole folder may hold; the oldest files go first to stay under it. Unset: no cap. */
  maxTotalBytes?: number;
  now?: () => number;
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
 *
 * Quotas are checked against an index of the folder kept in memory (read at first use and after
 * each sweep), so a check costs no disk access; see docs/media.md for what they bound.
 */
export function createFileMediaStore(options: FileMediaStoreOptions): MediaStore {
  const retentionMs = options.retentionDays * DAY_MS;
  const now = options.now ?? Date.now;
  const usage = createMediaUsage(options.directory);
  let scanned: Promise<void> | undefined;
  const ready = () => {
    scanned ??= usage.rescan();
    return scanned;
  };
  /** Takes the oldest files out of the index until `bytes` more fit under the total cap. */
  const makeRoom = (bytes: number): string[] => {
    const cap = options.maxTotalBytes;
    if (cap === undefined) return [];
    const victims: string[] = [];
    for (const [path] of usage.oldest()) {
      if (usage.totalBytes + bytes <= cap) break;
      victims.push(path);
      usage.remove(path);
    }
    return victims;
  };
  const write = async (folder: string, path: string, bytes: Uint8Array) => {
    await mkdir(folder, { recursive: true, mode: 0o700 });
    // `wx`: an existing file already holds these bytes, so a second write is skipped.
    await writeFile(path, bytes, { mode: 0o600, flag: 'wx' }).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'EEXIST') throw error;
    });
  };
  return {
    async put(bytes, personId) {
      const name = personFolder(personId);
      const folder = join(options.directory, name);
      const hash = createHash('sha256').update(bytes).digest('hex');
      const path = join(folder, hash);
      await ready();
      if (usage.has(path)) {
        // Already counted; written again only if something removed it meanwhile.
        await write(folder, path, bytes);
        return { hash, path };
      }
      const size = bytes.byteLength;
      const perPerson = options.maxBytesPerPersonPerDay;
      if (perPerson !== undefined && usage.bytesSince(name, now() - DAY_MS) + size > perPerson)
        throw new NexusError({
          code: 'rate_limited',
          message: `Keeping this file would take its sender past the ${perPerson} bytes a person may store in a day.`,
        });
      if (options.maxTotalBytes !== undefined && size > options.maxTotalBytes)
        throw new NexusError({
          code: 'attachment_too_large',
          message: 'larger than the whole media folder may hold',
        });
      // Counted before the write, so turns storing at once cannot together pass a cap.
      const victims = makeRoom(size);
      usage.add(path, { folder: name, bytes: size, storedAt: now() });
      await Promise.all(victims.map((victim) => rm(victim, { force: true })));
      try {
        await write(folder, path, bytes).catch(async (error: NodeJS.ErrnoException) => {
          // The sweep removed the folder just as it emptied: make it again, once.
          if (error.code !== 'ENOENT') throw error;
          await write(folder, path, bytes);
        });
      } catch (error) {
        usage.remove(path);
        throw error;
      }
      return { hash, path };
    },
    async bytesLeftToday(personId) {
      const perPerson = options.maxBytesPerPersonPerDay;
      if (perPerson === undefined) return Number.POSITIVE_INFINITY;
      await ready();
      return Math.max(0, perPerson - usage.bytesSince(personFolder(personId), now() - DAY_MS));
    },
    async forget(personIds) {
      let removed = 0;
      for (const personId of new Set(personIds)) {
        usage.removeFolder(personFolder(personId));
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
      // Files removed here, or by another process (`nexus forget`), leave the index.
      scanned = usage.rescan();
      await scanned;
      return removed;
    },
  };
}
