import { randomBytes } from 'node:crypto';
import { mkdir, open, readdir, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { WebUpload, WebUploads } from '@nexus/channel-websocket';
import { type ForgetTarget, type MediaStore, personFolder } from '@nexus/core';
import { NexusError } from '@nexus/protocol';

export interface FileWebUploadsOptions {
  /** Where upload records (owner, type, content hash) are kept: `<dataDir>/web-uploads`. */
  directory: string;
  /** Core's media store: the bytes live there once per content hash, with its retention. */
  media: MediaStore;
  /**
   * The web channel's name: a client's person id is `<channelName>:<clientId>` (as the channel's
   * intents say), which is whose media folder an upload's bytes go to.
   */
  channelName: string;
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
  /**
   * Deletes the upload records of the target's web identities (and, for records of the older
   * flat media layout, the bytes no other client's record uses); returns how many records went.
   */
  forget(target: ForgetTarget): Promise<number>;
}

/** 128 random bits in URL-safe base64: unguessable, and it matches the frame's uploadId pattern. */
const UPLOAD_ID = /^[A-Za-z0-9_-]{22}$/;

const unavailable = () =>
  new NexusError({
    code: 'attachment_unavailable',
    message: 'the upload expired or does not exist; upload it again',
  });

/**
 * Web uploads on disk. The bytes go into core's media store under the client's person id (named
 * by sha256, so a file that client sends twice is stored once, swept after the media retention,
 * erased when the person is forgotten); a small record per upload, named by its random id, says
 * which client may use it. Nothing here is ever served back over HTTP.
 */
export function createFileWebUploads(options: FileWebUploadsOptions): FileWebUploads {
  const retentionMs = options.retentionDays * 24 * 60 * 60 * 1000;
  const now = options.now ?? Date.now;
  let ready: Promise<unknown> | undefined;
  /** The person id the web channel gives a client (its intents' `userId` before any link). */
  const personOf = (clientId: string) => `${options.channelName}:${clientId}`;

  async function readRecord(path: string): Promise<UploadRecord | undefined> {
    const text = await readFile(path, 'utf8').catch(() => undefined);
    if (text === undefined) return undefined;
    try {
      return JSON.parse(text) as UploadRecord;
    } catch {
      return undefined;
    }
  }

  async function record(uploadId: string, clientId: string): Promise<UploadRecord | undefined> {
    if (!UPLOAD_ID.test(uploadId)) return undefined;
    const found = await readRecord(join(options.directory, `${uploadId}.json`));
    if (found === undefined) return undefined;
    if (found.clientId !== clientId || now() - found.createdAt > retentionMs) return undefined;
    return found;
  }

  return {
    async store(upload) {
      ready ??= mkdir(options.directory, { recursive: true, mode: 0o700 });
      await ready;
      const stored = await options.media.put(upload.bytes, personOf(upload.clientId));
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

    async forget(target) {
      const clientIds = new Set(
        target.identities
          .filter((identity) => identity.channel === options.channelName)
          .map((identity) => identity.platformId),
      );
      const prefix = personOf('');
      for (const userId of target.userIds) {
        if (userId.startsWith(prefix)) clientIds.add(userId.slice(prefix.length));
      }
      const forgotten: UploadRecord[] = [];
      const keptPaths = new Set<string>();
      for (const name of await readdir(options.directory).catch(() => [] as string[])) {
        if (!name.endsWith('.json')) continue;
        const path = join(options.directory, name);
        const found = await readRecord(path);
        if (found === undefined) continue;
        if (!clientIds.has(found.clientId)) {
          keptPaths.add(found.path);
          continue;
        }
        await rm(path, { force: true });
        forgotten.push(found);
      }
      // Bytes stored before media was kept per person live in one shared flat folder: they go with
      // the last record that names them. Newer records point into the person's own folder, which
      // the media eraser removes (and counts) as a whole.
      const flatPaths = forgotten
        .filter((found) => basename(dirname(found.path)) !== personFolder(personOf(found.clientId)))
        .map((found) => found.path);
      for (const path of new Set(flatPaths)) {
        if (!keptPaths.has(path)) await rm(path, { force: true });
      }
      return forgotten.length;
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
