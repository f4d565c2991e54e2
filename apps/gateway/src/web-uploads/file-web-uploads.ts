import { randomBytes } from 'node:crypto';
import { mkdir, open, readdir, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { WebUpload, WebUploads } from '@nexus/channel-websocket';
import type { MediaStore } from '@nexus/core';
import { NexusError } from '@nexus/protocol';

export interface FileWebUploadsOptions {
  /** Where upload records (owner, type, content hash) are kept: `<dataDir>/web-uploads`. */
  directory: string;
  /** Core's media store: the bytes live there once per content hash, with its retention. */
  media: MediaStore;
  retentionDays: number;
  now?: () => number;
}

export interface StoreUploadOptions {
  clientId: string;
  bytes: Uint8Array;
  kind: WebUpload['kind'];
  mimeType: string;
  name?: string;
}

interface UploadRecord extends WebUpload {
  hash: string;
  path: string;
  createdAt: number;
}

export interface FileWebUploads extends WebUploads {
  store(options: StoreUploadOptions): Promise<WebUpload>;
  /** Removes records past the retention; returns how many went. */
  sweep(now: number): Promise<number>;
}

/** 128 random bits in URL-safe base64: unguessable, and it matches the frame's uploadId pattern. */
const UPLOAD_ID = /^[A-Za-z0-9_-]{22}$/;

const unavailable = () =>
  new NexusError({
    code: 'attachment_unavailable',
    message: 'the upload expired or does not exist; upload it again',
  });

/**
 * Web uploads on disk. The bytes go into core's media store (named by sha256, so a file sent
 * twice is stored once, swept after the media retention); a small record per upload, named by
 * its random id, says which client may use it. Nothing here is ever served back over HTTP.
 */
export function createFileWebUploads(options: FileWebUploadsOptions): FileWebUploads {
  const retentionMs = options.retentionDays * 24 * 60 * 60 * 1000;
  const now = options.now ?? Date.now;
  let ready: Promise<unknown> | undefined;

  async function record(uploadId: string, clientId: string): Promise<UploadRecord | undefined> {
    if (!UPLOAD_ID.test(uploadId)) return undefined;
    const text = await readFile(join(options.directory, `${uploadId}.json`), 'utf8').catch(() => undefined);
    if (text === undefined) return undefined;
    let found: UploadRecord;
    try {
      found = JSON.parse(text) as UploadRecord;
    } catch {
      return undefined;
    }
    if (found.clientId !== clientId || now() - found.createdAt > retentionMs) return undefined;
    return found;
  }

  return {
    async store(upload) {
      ready ??= mkdir(options.directory, { recursive: true, mode: 0o700 });
      await ready;
      const stored = await options.media.put(upload.bytes);
      // The same bytes stored long ago would be swept soon: this upload starts their retention again.
      const time = new Date(now());
      await utimes(stored.path, time, time).catch(() => undefined);
      const uploadId = randomBytes(16).toString('base64url');
      const entry: UploadRecord = {
        uploadId,
        clientId: upload.clientId,
        kind: upload.kind,
        mimeType: upload.mimeType,
        sizeBytes: upload.bytes.byteLength,
        ...(upload.name === undefined ? {} : { name: upload.name }),
        hash: stored.hash,
        path: stored.path,
        createdAt: now(),
      };
      await writeFile(join(options.directory, `${uploadId}.json`), JSON.stringify(entry), {
        mode: 0o600,
        flag: 'wx',
      });
      const { hash: _hash, path: _path, createdAt: _createdAt, ...described } = entry;
      return described;
    },

    async describe({ uploadId, clientId }) {
      const found = await record(uploadId, clientId);
      if (found === undefined) return undefined;
      const { hash: _hash, path: _path, createdAt: _createdAt, ...described } = found;
      return described;
    },

    async read({ uploadId, clientId, maxBytes, abortSignal }) {
      abortSignal?.throwIfAborted();
      const found = await record(uploadId, clientId);
      if (found === undefined) throw unavailable();
      const file = await open(found.path, 'r').catch(() => undefined);
      if (file === undefined) throw unavailable();
      try {
        const { size } = await file.stat();
        if (size > maxBytes) {
          throw new NexusError({ code: 'attachment_too_large', message: `${size} bytes, over ${maxBytes}` });
        }
        const bytes = new Uint8Array(size);
        const { bytesRead } = await file.read(bytes, 0, size, 0);
        return {
          bytes: bytes.subarray(0, bytesRead),
          mimeType: found.mimeType,
          ...(found.name === undefined ? {} : { name: found.name }),
        };
      } finally {
        await file.close();
      }
    },

    async sweep(time) {
      const names = await readdir(options.directory).catch(() => [] as string[]);
      let removed = 0;
      for (const name of names) {
        const path = join(options.directory, name);
        const info = await stat(path).catch(() => undefined);
        if (info && time - info.mtimeMs > retentionMs) {
          await rm(path, { force: true });
          removed += 1;
        }
      }
      return removed;
    },
  };
}
