import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { mountSmallVolume, SMALL_VOLUME_NEEDS_ROOT, type SmallVolume } from '@nexus/sqlite-kit/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { classifySpace, dataVolumeSpace, FULL_BELOW_BYTES } from './data-volume-space.ts';

// The volume is measured with the real statfs. A truly full volume is a 32 MiB tmpfs filled up,
// which needs root (mount); elsewhere that part is skipped and the thresholds are checked on figures.
// (SQLite on a full volume: packages/sqlite-kit/src/in-transaction.int.test.ts.)

const MIB = 1024 * 1024;

describe('the data volume’s free space', () => {
  it('is measured where the data directory will be, before it exists', async () => {
    const parent = await mkdtemp(join(tmpdir(), 'nexus-volume-'));
    try {
      const space = await dataVolumeSpace(join(parent, 'not', 'made', 'yet'), 1);
      expect(space.status).toBe('ok');
      expect(space.availableBytes).toBeGreaterThan(0);
      expect(space.totalBytes).toBeGreaterThanOrEqual(space.availableBytes);
      expect((await dataVolumeSpace(parent, 10_000_000)).status).toBe('low');
    } finally {
      await rm(parent, { recursive: true, force: true });
    }
  });

  it('is full under 16 MiB free, nearly full under the setting, ok above it', () => {
    expect(classifySpace(FULL_BELOW_BYTES - 1, 1024 * MIB, 512)).toMatchObject({
      status: 'full',
      detail:
        'data volume full (16.0 MiB free of 1.0 GiB): messages cannot be stored; free space or grow the volume',
    });
    expect(classifySpace(FULL_BELOW_BYTES, 1024 * MIB, 512).status).toBe('low');
    expect(classifySpace(512 * MIB - 1, 1024 * MIB, 512).status).toBe('low');
    expect(classifySpace(512 * MIB, 1024 * MIB, 512)).toMatchObject({
      status: 'ok',
      detail: '512.0 MiB free of 1.0 GiB',
    });
  });
});

let volume: SmallVolume | undefined;
beforeAll(async () => {
  volume = await mountSmallVolume(32, 'full-volume');
});
afterAll(async () => {
  await volume?.remove();
});

describe('a volume that really is full', () => {
  it.runIf(process.getuid?.() === 0)('is reported full', async (context) => {
    if (!volume) context.skip(SMALL_VOLUME_NEEDS_ROOT);
    await writeFile(join(volume!.path, 'filler'), Buffer.alloc(10 * MIB));
    expect(await dataVolumeSpace(volume!.path, 24)).toMatchObject({ status: 'low' });
    await writeFile(join(volume!.path, 'more'), Buffer.alloc(21 * MIB));
    const space = await dataVolumeSpace(volume!.path, 24);
    expect(space.status).toBe('full');
    expect(space.detail).toMatch(/^data volume full \([\d.]+ [KM]iB free of 32\.0 MiB\)/);
  });
});
