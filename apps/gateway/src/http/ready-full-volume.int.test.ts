import { execFileSync } from 'node:child_process';
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { mountSmallVolume, SMALL_VOLUME_NEEDS_ROOT, type SmallVolume } from '@nexus/sqlite-kit/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway } from '../testing/test-gateway.ts';

// A gateway whose data directory is on a 64 MiB tmpfs: filling the volume makes /ready say so and
// answer 503, and freeing it makes the gateway ready again. Mounting needs root; as anyone else
// this is skipped (data-volume-space.int.test.ts checks the thresholds on figures).

const MIB = 1024 * 1024;
let volume: SmallVolume | undefined;
beforeAll(async () => {
  volume = await mountSmallVolume(64, 'ready-volume');
});
afterAll(async () => {
  await volume?.remove();
});

interface ReadyBody {
  ready: boolean;
  checks: Record<string, { status: string; detail?: string }>;
}

describe('/ready on a data volume that fills up', () => {
  it('answers 503 with the volume full, and ready again once there is room', async (context) => {
    if (!volume) context.skip(SMALL_VOLUME_NEEDS_ROOT);
    const gateway = await startTestGateway({ dataDir: join(volume!.path, 'data') });
    try {
      const ready = async () => {
        const response = await fetch(`${gateway.url}/ready`);
        return { status: response.status, body: (await response.json()) as ReadyBody };
      };
      await expect
        .poll(async () => (await ready()).body.checks.dataVolume?.status, { timeout: 10_000 })
        .toBe('low');
      expect((await ready()).status).toBe(200);

      // Leave about 8 MiB: under the 16 MiB in which SQLite is about to fail.
      const free = Number(
        execFileSync('df', ['--output=avail', '-B1', volume!.path]).toString().split('\n')[1],
      );
      await writeFile(join(volume!.path, 'filler'), Buffer.alloc(free - 8 * MIB));
      // /ready measures again at most every five seconds.
      await expect.poll(async () => (await ready()).status, { timeout: 15_000, interval: 500 }).toBe(503);
      const full = await ready();
      expect(full.body.ready).toBe(false);
      expect(full.body.checks.dataVolume?.status).toBe('full');
      expect(full.body.checks.dataVolume?.detail).toMatch(
        /^data volume full \([\d.]+ MiB free of 64\.0 MiB\): messages cannot be stored/,
      );

      await rm(join(volume!.path, 'filler'));
      await expect.poll(async () => (await ready()).status, { timeout: 15_000, interval: 500 }).toBe(200);
    } finally {
      await gateway.dispose();
    }
  }, 60_000);
});
