import { createHash } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createFileMediaStore, mediaStoreEraser } from '@nexus/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createFileWebUploads } from './file-web-uploads.ts';

let dataDir: string;

beforeEach(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'nexus-web-uploads-'));
});
afterEach(async () => {
  await rm(dataDir, { recursive: true, force: true });
});

function stores() {
  const media = createFileMediaStore({ directory: join(dataDir, 'media'), retentionDays: 30 });
  const uploads = createFileWebUploads({
    directory: join(dataDir, 'web-uploads'),
    media,
    channelName: 'web',
    retentionDays: 30,
  });
  return { media, uploads };
}

const text = (value: string) => new TextEncoder().encode(value);

describe('file web uploads, forgetting a person', () => {
  it('removes the records and bytes of the person’s web accounts, and only theirs', async () => {
    const { media, uploads } = stores();
    const same = text('shared notes');
    const ann = await uploads.store({
      clientId: 'ann',
      bytes: same,
      kind: 'document',
      mimeType: 'text/plain',
    });
    const annPhone = await uploads.store({
      clientId: 'ann-phone',
      bytes: text('from her phone'),
      kind: 'document',
      mimeType: 'text/plain',
    });
    const bob = await uploads.store({
      clientId: 'bob',
      bytes: same,
      kind: 'document',
      mimeType: 'text/plain',
    });

    // Ann is `telegram:1`, with two web clients linked: one named by identity, one by its home id.
    const target = {
      userIds: ['telegram:1', 'web:ann-phone'],
      identities: [
        { channel: 'telegram', platformId: '1' },
        { channel: 'web', platformId: 'ann' },
      ],
    };
    expect(await uploads.forget(target)).toBe(2);
    expect(await mediaStoreEraser(media).erase(target, {})).toBe(1); // ann-phone's own folder
    expect(await media.forget(['web:ann'])).toBe(1);

    expect(await uploads.describe({ uploadId: ann.uploadId, clientId: 'ann' })).toBeUndefined();
    expect(await uploads.describe({ uploadId: annPhone.uploadId, clientId: 'ann-phone' })).toBeUndefined();
    const kept = await uploads.read({ uploadId: bob.uploadId, clientId: 'bob', maxBytes: 1000 });
    expect(new TextDecoder().decode(kept.bytes)).toBe('shared notes');
    expect(await readdir(join(dataDir, 'web-uploads'))).toEqual([`${bob.uploadId}.json`]);
  });

  it('removes bytes of the older flat media layout once no other client’s record names them', async () => {
    const { uploads } = stores();
    const mediaDir = join(dataDir, 'media');
    const recordsDir = join(dataDir, 'web-uploads');
    const { mkdir } = await import('node:fs/promises');
    await mkdir(mediaDir, { recursive: true, mode: 0o700 });
    await mkdir(recordsDir, { recursive: true, mode: 0o700 });
    // Records as the previous version wrote them: paths right under media/, shared by content.
    const flat = async (uploadId: string, clientId: string, content: string) => {
      const hash = createHash('sha256').update(content).digest('hex');
      const path = join(mediaDir, hash);
      await writeFile(path, content, { mode: 0o600 });
      const record = {
        uploadId,
        clientId,
        kind: 'document',
        mimeType: 'text/plain',
        sizeBytes: 1,
        hash,
        path,
      };
      await writeFile(
        join(recordsDir, `${uploadId}.json`),
        JSON.stringify({ ...record, createdAt: Date.now() }),
      );
      return path;
    };
    const own = await flat('A'.repeat(22), 'ann', 'only ann sent this');
    const shared = await flat('B'.repeat(22), 'ann', 'both sent this');
    await flat('C'.repeat(22), 'bob', 'both sent this');
    await writeFile(join(recordsDir, 'broken.json'), '{not json');

    expect(
      await uploads.forget({ userIds: ['web:ann'], identities: [{ channel: 'web', platformId: 'ann' }] }),
    ).toBe(2);
    await expect(stat(own)).rejects.toMatchObject({ code: 'ENOENT' });
    expect(await readFile(shared, 'utf8')).toBe('both sent this');
    expect((await readdir(recordsDir)).sort()).toEqual([`${'C'.repeat(22)}.json`, 'broken.json']);
  });
});
