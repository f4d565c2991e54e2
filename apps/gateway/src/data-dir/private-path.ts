import { chmodSync, closeSync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';

/** Mode of every directory Nexus creates in the data directory: the owner's alone. */
export const PRIVATE_DIRECTORY_MODE = 0o700;
/** Mode of every file Nexus creates there: conversations, people, tokens, WhatsApp keys. */
export const PRIVATE_FILE_MODE = 0o600;

/**
 * Creates a directory (and missing parents) as 0700 whatever the umask; an existing one is left
 * as it is (`nexus doctor` reports and fixes loose modes). Start-up only, so synchronous.
 */
export function ensurePrivateDirectory(path: string): void {
  const created = mkdirSync(path, { recursive: true, mode: PRIVATE_DIRECTORY_MODE });
  if (created !== undefined) chmodSync(path, PRIVATE_DIRECTORY_MODE);
}

/**
 * Returns `path` after creating it as an empty 0600 file when it does not exist yet. A library
 * that opens it afterwards (node:sqlite) keeps that mode, and SQLite gives its -wal and -shm files
 * the mode of the database file, so the whole store stays private whatever the umask.
 */
export function privateFilePath(path: string): string {
  ensurePrivateDirectory(dirname(path));
  let descriptor: number;
  try {
    descriptor = openSync(path, 'wx', PRIVATE_FILE_MODE);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return path;
    throw error;
  }
  try {
    chmodSync(path, PRIVATE_FILE_MODE);
  } finally {
    closeSync(descriptor);
  }
  return path;
}
