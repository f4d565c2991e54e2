// The three secrets of docker-compose.yml, made as the README tells a self-hoster to: random,
// owned by UID 1000 (the image's node user) and group 0 (Redis and Qdrant read theirs as root
// without capabilities, so through the group), mode 0440.
import { randomBytes } from 'node:crypto';
import { chmod, chown, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const SECRET_NAMES = ['redis-password', 'qdrant-api-key', 'memory-api-key'] as const;

export interface StackSecrets {
  dir: string;
  values: Record<(typeof SECRET_NAMES)[number], string>;
  remove(): Promise<void>;
}

export async function createSecrets(): Promise<StackSecrets> {
  const dir = await mkdtemp(join(tmpdir(), 'nexus-stack-secrets-'));
  await chmod(dir, 0o755);
  const values = {} as StackSecrets['values'];
  for (const name of SECRET_NAMES) {
    values[name] = randomBytes(32).toString('hex');
    const path = join(dir, name);
    await writeFile(path, `${values[name]}\n`, { mode: 0o600 });
    if (process.getuid?.() === 0) await chown(path, 1000, 0);
    await chmod(path, process.getuid?.() === 0 ? 0o440 : 0o444);
  }
  return { dir, values, remove: () => rm(dir, { recursive: true, force: true }) };
}
