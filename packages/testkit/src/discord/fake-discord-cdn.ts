import { createHmac } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';

/** How long a signed attachment URL stays valid, like Discord's CDN links (about a day). */
const LINK_LIFETIME_SECONDS = 24 * 60 * 60;

/**
 * Discord's attachment CDN as the fake serves it: each file under
 * `/attachments/<channel>/<attachment>/<name>` with the signed `ex`/`is`/`hm` query Discord adds
 * since 2024; a link with a wrong signature or past its expiry answers 404 as Discord's does.
 */
export function createFakeDiscordCdn(options: { now: () => number }) {
  const files = new Map<string, Uint8Array>();
  const secret = `fake-cdn-${Math.random()}`;
  let base = 'http://127.0.0.1:0/cdn';
  const signature = (path: string, expires: string, issued: string) =>
    createHmac('sha256', secret).update(`${path}|${expires}|${issued}`).digest('hex');

  return {
    setBase(url: string): void {
      base = url;
    },
    /** Stores the bytes and returns the signed URL the attachment payload carries. */
    publish(channelId: string, attachmentId: string, filename: string, content: Uint8Array): string {
      const path = `/attachments/${channelId}/${attachmentId}/${encodeURIComponent(filename)}`;
      files.set(path, content);
      const issued = Math.floor(options.now() / 1000);
      const expires = (issued + LINK_LIFETIME_SECONDS).toString(16);
      const issuedHex = issued.toString(16);
      return `${base}${path}?ex=${expires}&is=${issuedHex}&hm=${signature(path, expires, issuedHex)}&`;
    },
    /** Handles `/cdn/...`; false when the request is not for the CDN. */
    handle(request: IncomingMessage, response: ServerResponse): boolean {
      const url = new URL(request.url ?? '/', 'http://fake.invalid');
      if (!url.pathname.startsWith('/cdn/')) return false;
      const path = url.pathname.slice('/cdn'.length);
      const expires = url.searchParams.get('ex') ?? '';
      const issued = url.searchParams.get('is') ?? '';
      const content = files.get(path);
      const valid =
        content !== undefined &&
        url.searchParams.get('hm') === signature(path, expires, issued) &&
        Number.parseInt(expires, 16) * 1000 > options.now();
      if (!valid) {
        response.writeHead(404, { 'content-type': 'text/plain' });
        response.end('This content is no longer available.');
        return true;
      }
      response.writeHead(200, {
        'content-type': 'application/octet-stream',
        'content-length': content.byteLength,
      });
      response.end(content);
      return true;
    },
  };
}

export type FakeDiscordCdn = ReturnType<typeof createFakeDiscordCdn>;

/** A file a bot uploaded with a message (`files[n]` parts of a multipart request). */
export interface UploadedDiscordFile {
  filename: string;
  contentType?: string;
  bytes: Uint8Array;
}

/**
 * Reads a multipart message request as Discord does: the JSON body in `payload_json`, the files
 * in `files[n]` parts. Discord's default upload limit is 10 MiB per request for a bot.
 */
export async function readDiscordMultipart(
  raw: Buffer,
  contentType: string,
): Promise<{ body: Record<string, unknown>; files: UploadedDiscordFile[] }> {
  const form = await new Response(new Uint8Array(raw), {
    headers: { 'content-type': contentType },
  }).formData();
  const payload = form.get('payload_json');
  const body = typeof payload === 'string' ? (JSON.parse(payload) as Record<string, unknown>) : {};
  const files: UploadedDiscordFile[] = [];
  for (const [name, value] of form.entries()) {
    if (!/^files\[\d+\]$/.test(name) || typeof value === 'string') continue;
    files.push({
      filename: value.name,
      ...(value.type ? { contentType: value.type } : {}),
      bytes: new Uint8Array(await value.arrayBuffer()),
    });
  }
  return { body, files };
}

export const DISCORD_DEFAULT_UPLOAD_LIMIT_BYTES = 10 * 1024 * 1024;
