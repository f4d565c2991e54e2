import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { silentLogger } from '@nexus/protocol';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createFileUpdateStore } from './file-update-store.ts';
import { UpdateGate } from './update-gate.ts';
import { createMemoryUpdateStore } from './update-store.ts';

const DAY = 24 * 60 * 60 * 1000;

describe('UpdateGate', () => {
  it('lets each update through once and skips ids at or below the persisted mark', async () => {
    const store = createMemoryUpdateStore(100);
    const gate = new UpdateGate({ store, logger: silentLogger, now: () => 0 });
    await gate.load();
    expect(gate.begin(99)).toBe(false);
    expect(gate.begin(100)).toBe(false);
    expect(gate.begin(101)).toBe(true);
    expect(gate.begin(101)).toBe(false);
    gate.finish(101);
    expect(gate.begin(101)).toBe(false);
    await gate.flush();
    expect(await store.lastUpdateId()).toBe(101);
  });

  it('does not move the mark past an update that is still running', async () => {
    const store = createMemoryUpdateStore();
    const gate = new UpdateGate({ store, logger: silentLogger, now: () => 0 });
    await gate.load();
    for (const id of [1, 2, 3]) gate.begin(id);
    gate.finish(3);
    gate.finish(1);
    await gate.flush();
    expect(await store.lastUpdateId()).toBe(1);
    gate.finish(2);
    await gate.flush();
    expect(await store.lastUpdateId()).toBe(3);
  });

  it('forgets the mark after a week without updates (Telegram then restarts ids at random)', async () => {
    let now = 0;
    const gate = new UpdateGate({ store: createMemoryUpdateStore(), logger: silentLogger, now: () => now });
    gate.begin(500);
    gate.finish(500);
    now += 7 * DAY;
    expect(gate.begin(12)).toBe(true);
  });

  it('keeps running when the store fails', async () => {
    const gate = new UpdateGate({
      store: {
        lastUpdateId: async () => undefined,
        setLastUpdateId: async () => {
          throw new Error('disk full');
        },
      },
      logger: silentLogger,
      now: () => 0,
    });
    gate.begin(1);
    gate.finish(1);
    await gate.flush();
    expect(gate.begin(2)).toBe(true);
  });
});

describe('createFileUpdateStore', () => {
  let folder: string;
  beforeEach(async () => {
    folder = await mkdtemp(join(tmpdir(), 'nexus-telegram-'));
  });
  afterEach(async () => {
    await rm(folder, { recursive: true, force: true });
  });

  it('persists the mark across instances and collapses bursts', async () => {
    const path = join(folder, 'nested', 'telegram-updates.json');
    const store = createFileUpdateStore({ path, now: () => Date.parse('2026-01-01T00:00:00Z') });
    expect(await store.lastUpdateId()).toBeUndefined();
    await Promise.all([1, 2, 3, 4, 5].map((id) => store.setLastUpdateId(id)));
    expect(JSON.parse(await readFile(path, 'utf8'))).toEqual({
      lastUpdateId: 5,
      savedAt: '2026-01-01T00:00:00.000Z',
    });
    const reopened = createFileUpdateStore({ path, now: () => Date.parse('2026-01-02T00:00:00Z') });
    expect(await reopened.lastUpdateId()).toBe(5);
  });

  it('ignores a mark older than the age limit', async () => {
    const path = join(folder, 'old.json');
    await writeFile(path, JSON.stringify({ lastUpdateId: 9, savedAt: '2026-01-01T00:00:00.000Z' }));
    const store = createFileUpdateStore({ path, now: () => Date.parse('2026-01-09T00:00:00Z') });
    expect(await store.lastUpdateId()).toBeUndefined();
  });
});
