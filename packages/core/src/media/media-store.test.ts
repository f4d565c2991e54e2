import { mkdtemp, readdir, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createFileMediaStore, personFolder } from './media-store.ts';

const DAY = 24 * 60 * 60 * 1000;
let directory: string;

beforeEach(async () => {
  directory = join(await mkdtemp(join(tmpdir(), 'nexus-media-')), 'media');
});
afterEach(async () => {
  await rm(join(directory, '..'), { recursive: true, force: true });
});

const bytes = (text: string) => new TextEncoder().encode(text);

describe('file media store', () => {
  it('keeps the same bytes once per person, and forgetting one person leaves the other’s copy', async () => {
    const store = createFileMediaStore({ directory, retentionDays: 30 });
    const photo = bytes('the same holiday photo');
    const ann = await store.put(photo, 'telegram:ann');
    const again = await store.put(photo, 'telegram:ann');
    const bob = await store.put(photo, 'discord:bob');
    await store.put(bytes('a voice note of ann'), 'web:ann-browser');

    expect(again).toEqual(ann);
    expect(bob.hash).toBe(ann.hash);
    expect(bob.path).not.toBe(ann.path);
    expect(ann.path).toBe(join(directory, personFolder('telegram:ann'), ann.hash));
    // No person id appears in a name on disk.
    expect((await readdir(directory)).join()).not.toMatch(/ann|bob/);
    expect((await stat(directory)).mode & 0o777).toBe(0o700);
    expect((await stat(join(directory, personFolder('telegram:ann')))).mode & 0o777).toBe(0o700);
    expect((await stat(ann.path)).mode & 0o777).toBe(0o600);

    // Ann's own id and her linked web account's, as a ForgetTarget carries them.
    expect(await store.forget(['telegram:ann', 'web:ann-browser', 'never-seen'])).toBe(2);
    await expect(stat(ann.path)).rejects.toMatchObject({ code: 'ENOENT' });
    expect(await readdir(directory)).toEqual([personFolder('discord:bob')]);
    expect(await readFile(bob.path, 'utf8')).toBe('the same holiday photo');
    expect(await store.forget(['telegram:ann'])).toBe(0);

    // Her next file is kept again, in a fresh folder.
    const later = await store.put(photo, 'telegram:ann');
    expect(await readFile(later.path, 'utf8')).toBe('the same holiday photo');
  });

  it('sweeps expired files of both layouts, keeps fresh ones, and drops emptied person folders', async () => {
    const store = createFileMediaStore({ directory, retentionDays: 30 });
    const now = Date.now();
    const old = new Date(now - 31 * DAY);
    const expired = await store.put(bytes('old photo'), 'telegram:ann');
    await utimes(expired.path, old, old);
    const fresh = await store.put(bytes('new photo'), 'discord:bob');
    const staleOfBob = await store.put(bytes('old note'), 'discord:bob');
    await utimes(staleOfBob.path, old, old);
    // A data directory from before media was kept per person: files right under media/.
    const flatOld = join(directory, 'a'.repeat(64));
    const flatNew = join(directory, 'b'.repeat(64));
    await writeFile(flatOld, 'flat old', { mode: 0o600 });
    await utimes(flatOld, old, old);
    await writeFile(flatNew, 'flat new', { mode: 0o600 });

    expect(await store.sweep(now)).toBe(3);
    expect((await readdir(directory)).sort()).toEqual(['b'.repeat(64), personFolder('discord:bob')].sort());
    expect(await readdir(join(directory, personFolder('discord:bob')))).toEqual([fresh.hash]);
    expect(await store.sweep(now)).toBe(0);

    // A put after its folder was swept away makes the folder again.
    expect(await readFile((await store.put(bytes('old photo'), 'telegram:ann')).path, 'utf8')).toBe(
      'old photo',
    );
  });

  it('sweeps and forgets nothing, without failing, before anything was stored', async () => {
    const store = createFileMediaStore({ directory, retentionDays: 1 });
    expect(await store.sweep(Date.now())).toBe(0);
    expect(await store.forget(['web:ann'])).toBe(0);
  });
});

describe('file media store quotas', () => {
  it('refuses a file that would take a person past their daily quota, and frees it after a day', async () => {
    let now = Date.now();
    const store = createFileMediaStore({
      directory,
      retentionDays: 30,
      maxBytesPerPersonPerDay: 100,
      now: () => now,
    });
    await store.put(new Uint8Array(60).fill(1), 'telegram:ann');
    expect(await store.bytesLeftToday('telegram:ann')).toBe(40);
    await expect(store.put(new Uint8Array(50).fill(2), 'telegram:ann')).rejects.toMatchObject({
      code: 'rate_limited',
    });
    // The same bytes again cost nothing; another person has their own quota.
    await store.put(new Uint8Array(60).fill(1), 'telegram:ann');
    await store.put(new Uint8Array(90).fill(3), 'discord:bob');
    expect(await readdir(join(directory, personFolder('telegram:ann')))).toHaveLength(1);
    now += DAY + 1;
    expect(await store.bytesLeftToday('telegram:ann')).toBe(100);
    await store.put(new Uint8Array(50).fill(2), 'telegram:ann');
  });

  it('removes the oldest files to stay under the total cap, counting what was on disk at start', async () => {
    const first = createFileMediaStore({ directory, retentionDays: 30 });
    const oldest = await first.put(new Uint8Array(40).fill(1), 'telegram:ann');
    const old = new Date(Date.now() - 60_000);
    await utimes(oldest.path, old, old);
    const store = createFileMediaStore({ directory, retentionDays: 30, maxTotalBytes: 100 });
    const middle = await store.put(new Uint8Array(40).fill(2), 'discord:bob');
    const newest = await store.put(new Uint8Array(40).fill(3), 'telegram:ann');
    await expect(stat(oldest.path)).rejects.toMatchObject({ code: 'ENOENT' });
    expect((await stat(middle.path)).size).toBe(40);
    expect((await stat(newest.path)).size).toBe(40);
    await expect(store.put(new Uint8Array(101), 'telegram:ann')).rejects.toMatchObject({
      code: 'attachment_too_large',
    });
  });
});
