// The three secrets of docker-compose.yml, made as the README tells a self-hoster to: random,
// owned by root and the secrets group (NEXUS_SECRETS_GID, 8787 unless `gid` says otherwise),
// mode 0440. Only the group lets the image's `node` user (UID 1000) read them: the stack coming up
// healthy, and the gateway reading its password, show that docker-compose.yml's group_add works.
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

/** The GID docker-compose.yml adds to the services that read secrets when NEXUS_SECRETS_GID is unset. */
export const DEFAULT_SECRETS_GID = 8787;

export async function createSecrets(gid = DEFAULT_SECRETS_GID): Promise<StackSecrets> {
  if (process.getuid?.() !== 0) {
    throw new Error('the stack test makes the secrets as the README does (chown root:GID): run it as root');
  }
  const dir = await mkdtemp(join(tmpdir(), 'nexus-stack-secrets-'));
  await chmod(dir, 0o755);
  const values = {} as StackSecrets['values'];
  for (const name of SECRET_NAMES) {
    values[name] = randomBytes(32).toString('hex');
    const path = join(dir, name);
    await writeFile(path, `${values[name]}\n`, { mode: 0o600 });
    await chown(path, 0, gid);
    await chmod(path, 0o440);
  }
  return { dir, values, remove: () => rm(dir, { recursive: true, force: true }) };
}
