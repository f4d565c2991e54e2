import { execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A tmpfs of a few MiB that a test can fill to get a volume that really is full. */
export interface SmallVolume {
  /** Where it is mounted. */
  readonly path: string;
  /** Unmounts it and removes the mount point. */
  remove(): Promise<void>;
}

/** Why `mountSmallVolume` may give nothing: the skip reason tests print. */
export const SMALL_VOLUME_NEEDS_ROOT = 'mounting a tmpfs needs root (and a kernel that allows it)';

/**
 * Mounts a tmpfs of `sizeMiB` under the temp folder, or gives undefined where that is not allowed
 * (not root, or a container without mount rights): SQLite's "database or disk is full" and
 * statfs's figures then come from a real file system rather than a simulated error.
 */
export async function mountSmallVolume(sizeMiB: number, name: string): Promise<SmallVolume | undefined> {
  if (process.getuid?.() !== 0) return undefined;
  const path = await mkdtemp(join(tmpdir(), `nexus-${name}-`));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${sizeMiB}m`, 'tmpfs', path], { stdio: 'ignore' });
  } catch {
    await rm(path, { recursive: true, force: true });
    return undefined;
  }
  return {
    path,
    async remove() {
      execFileSync('umount', [path]);
      await rm(path, { recursive: true, force: true });
    },
  };
}
