import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';

interface Entry {
  folder: string;
  bytes: number;
  storedAt: number;
}

export interface MediaUsage {
  /** Reads the folder again (at start, and after each sweep: the CLI may have removed files). */
  rescan(): Promise<void>;
  readonly totalBytes: number;
  /** Bytes stored in `folder` since `since` (epoch ms). */
  bytesSince(folder: string, since: number): number;
  has(path: string): boolean;
  add(path: string, entry: Entry): void;
  remove(path: string): void;
  removeFolder(folder: string): void;
  /** Files oldest first, for eviction. */
  oldest(): IterableIterator<[string, Entry]>;
}

/**
 * What the media folder holds, kept in memory so a quota check costs no disk access: every
 * file's size, its person folder, and when it was stored. Files are listed in the order they were
 * stored (a rescan sorts by modification time), which is the order the total cap evicts them in.
 */
export function createMediaUsage(directory: string): MediaUsage {
  let entries = new Map<string, Entry>();
  let totalBytes = 0;
  return {
    async rescan() {
      const found: [string, Entry][] = [];
      for (const top of await readdir(directory, { withFileTypes: true }).catch(() => [])) {
        const path = join(directory, top.name);
        if (!top.isDirectory()) {
          const info = await stat(path).catch(() => undefined);
          if (info?.isFile()) found.push([path, { folder: '', bytes: info.size, storedAt: info.mtimeMs }]);
          continue;
        }
        for (const name of await readdir(path).catch(() => [] as string[])) {
          const info = await stat(join(path, name)).catch(() => undefined);
          if (info?.isFile())
            found.push([join(path, name), { folder: top.name, bytes: info.size, storedAt: info.mtimeMs }]);
        }
      }
      found.sort((a, b) => a[1].storedAt - b[1].storedAt);
      entries = new Map(found);
      totalBytes = found.reduce((sum, [, entry]) => sum + entry.bytes, 0);
    },
    get totalBytes() {
      return totalBytes;
    },
    bytesSince(folder, since) {
      let bytes = 0;
      for (const entry of entries.values())
        if (entry.folder === folder && entry.storedAt >= since) bytes += entry.bytes;
      return bytes;
    },
    has: (path) => entries.has(path),
    add(path, entry) {
      if (entries.has(path)) return;
      entries.set(path, entry);
      totalBytes += entry.bytes;
    },
    remove(path) {
      const entry = entries.get(path);
      if (!entry) return;
      entries.delete(path);
      totalBytes -= entry.bytes;
    },
    removeFolder(folder) {
      for (const [path, entry] of entries)
        if (entry.folder === folder) {
          entries.delete(path);
          totalBytes -= entry.bytes;
        }
    },
    oldest: () => entries.entries(),
  };
}
