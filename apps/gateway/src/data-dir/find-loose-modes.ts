import { chmod, lstat, readdir } from 'node:fs/promises';
import { join } from 'node:path';

/** A file or directory in the data directory that others than its owner may read, write or enter. */
export interface LooseMode {
  path: string;
  kind: 'directory' | 'file';
  /** Permission bits now, e.g. 0o644. */
  mode: number;
}

/**
 * Walks the data directory (symbolic links are not followed) and lists everything with group or
 * other permission bits: SQLite stores hold every conversation, the web token signs in as the
 * owner, and the WhatsApp store holds the keys of a linked phone.
 */
export async function findLooseModes(dataDir: string): Promise<LooseMode[]> {
  const loose: LooseMode[] = [];
  const visit = async (path: string): Promise<void> => {
    const info = await lstat(path).catch(() => undefined);
    if (!info || info.isSymbolicLink()) return;
    const mode = info.mode & 0o777;
    if (info.isDirectory()) {
      if ((mode & 0o077) !== 0) loose.push({ path, kind: 'directory', mode });
      const entries = await readdir(path).catch(() => []);
      for (const entry of entries.sort()) await visit(join(path, entry));
    } else if (info.isFile() && (mode & 0o077) !== 0) {
      loose.push({ path, kind: 'file', mode });
    }
  };
  await visit(dataDir);
  return loose;
}

/** Takes group and other permissions away from each entry, as `chmod go-rwx` does. */
export async function tightenModes(entries: readonly LooseMode[]): Promise<void> {
  for (const entry of entries) await chmod(entry.path, entry.mode & ~0o077);
}

/** The shell commands that do what `tightenModes` does, for an operator who prefers to run them. */
export function chmodCommand(dataDir: string): string {
  const quoted = `'${dataDir.replaceAll("'", "'\\''")}'`;
  return `chmod -R go-rwx ${quoted}`;
}
