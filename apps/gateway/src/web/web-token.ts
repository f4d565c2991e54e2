import { randomBytes } from 'node:crypto';
import { chmod, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * The web client's token: the configured one, else the one generated on first start and kept in the
 * data directory (mode 0600), so restarts keep signed-in browsers signed in.
 */
export async function loadOrCreateWebToken(dataDir: string, configured?: string): Promise<string> {
  if (configured) return configured;
  const path = join(dataDir, 'web-token');
  try {
    const existing = (await readFile(path, 'utf8')).trim();
    if (existing.length >= 16) return existing;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const token = randomBytes(24).toString('base64url');
  await writeFile(path, `${token}\n`, { mode: 0o600 });
  await chmod(path, 0o600);
  return token;
}
