import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { mountSmallVolume, SMALL_VOLUME_NEEDS_ROOT, type SmallVolume } from '@nexus/sqlite-kit/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSqliteJobQueue } from './sqlite-job-queue.ts';

// Enqueues batched into one transaction (the queue's group commit) on a volume that really is
// full: an 8 MiB tmpfs, filled up. Each enqueue must fail with SQLite's own "database or disk is
// full", none may be stored outside the failed transaction, and the queue must work again once
// there is room. Mounting needs root; as anyone else this is skipped.

const MIB = 1024 * 1024;
let volume: SmallVolume | undefined;
beforeAll(async () => {
  volume = await mountSmallVolume(8, 'full-queue');
});
afterAll(async () => {
  await volume?.remove();
});

describe('the SQLite job queue on a full volume', () => {
  it('fails every enqueue of a batch with "database or disk is full" and stores none of them', async (context) => {
    if (!volume) context.skip(SMALL_VOLUME_NEEDS_ROOT);
    const path = join(volume!.path, 'jobs.sqlite');
    const queue = createSqliteJobQueue({ path });
    try {
      await queue.enqueue({ name: 'test.job', payload: { n: 0 } });
      await writeFile(join(volume!.path, 'filler'), Buffer.alloc(8 * MIB - 128 * 1024));
      // Big enough together that the batch cannot fit in what is left.
      const big = 'x'.repeat(60_000);
      const outcomes = await Promise.allSettled(
        Array.from({ length: 8 }, (_, index) => queue.enqueue({ name: 'test.job', payload: { index, big } })),
      );
      for (const outcome of outcomes) {
        expect(outcome.status).toBe('rejected');
        const reason = (outcome as PromiseRejectedResult).reason as Error & { cause?: Error };
        expect(`${reason.message} ${reason.cause?.message ?? ''}`).toContain('database or disk is full');
        expect(reason.message).not.toContain('no transaction is active');
      }
      await rm(join(volume!.path, 'filler'));
      await queue.enqueue({ name: 'test.job', payload: { n: 1 } });
    } finally {
      await queue.close({ timeoutMs: 100 });
    }
    const database = new DatabaseSync(path);
    try {
      expect(database.prepare('SELECT count(*) AS n FROM jobs').get()).toEqual({ n: 2 });
    } finally {
      database.close();
    }
  });

  it('stores no job of a batch outside its transaction when one insert fills the disk mid-batch', async (context) => {
    if (!volume) context.skip(SMALL_VOLUME_NEEDS_ROOT);
    const path = join(volume!.path, 'mid-batch.sqlite');
    // A payload cap above the big job's size, so the disk, not the cap, refuses it.
    const queue = createSqliteJobQueue({ path, maxPayloadBytes: 8 * MIB });
    try {
      await queue.enqueue({ name: 'test.job', payload: { n: 0 } });
      await writeFile(join(volume!.path, 'filler'), Buffer.alloc(5 * MIB));
      // The middle job is larger than the room left and than SQLite's page cache, so its insert
      // itself fails and SQLite ends the transaction; the small ones around it would fit.
      const outcomes = await Promise.allSettled([
        queue.enqueue({ name: 'test.job', payload: { n: 1 } }),
        queue.enqueue({ name: 'test.job', payload: { big: 'x'.repeat(4 * MIB) } }),
        queue.enqueue({ name: 'test.job', payload: { n: 3 } }),
      ]);
      for (const outcome of outcomes) {
        expect(outcome.status).toBe('rejected');
        const reason = (outcome as PromiseRejectedResult).reason as Error & { cause?: Error };
        expect(`${reason.message} ${reason.cause?.message ?? ''}`).toContain('database or disk is full');
      }
      await rm(join(volume!.path, 'filler'));
    } finally {
      await queue.close({ timeoutMs: 100 });
    }
    const database = new DatabaseSync(path);
    try {
      expect(database.prepare('SELECT count(*) AS n FROM jobs').get()).toEqual({ n: 1 });
    } finally {
      database.close();
    }
  });
});
