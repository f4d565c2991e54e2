import { chmodSync, closeSync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * Creates `path` as an empty owner-only file (0600, parents 0700) when it does not exist yet,
 * whatever the umask. SQLite keeps that mode and gives its -wal and -shm files the mode of the
 * database file, so the whole store stays private. An existing file is left as it is.
 */
export function createPrivateFile(path: string): void {
  const created = mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  if (created !== undefined) chmodSync(dirname(path), 0o700);
  let descriptor: number;
  try {
    descriptor = openSync(path, 'wx', 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return;
    throw error;
  }
  try {
    chmodSync(path, 0o600);
  } finally {
    closeSync(descriptor);
  }
}
