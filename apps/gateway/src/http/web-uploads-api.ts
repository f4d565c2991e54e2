import type { IncomingMessage, ServerResponse } from 'node:http';
import { refuseAfterBody } from '@nexus/channel-kit';
import type { WebUpload } from '@nexus/channel-websocket';
import { formatMegabytes, sniffMediaType } from '@nexus/core';
import { requestPath } from '@nexus/limits-kit';
import { type Logger, NexusError } from '@nexus/protocol';
import type { FileWebUploads } from '../web-uploads/file-web-uploads.ts';
import { authorized, digest, sendJson } from './pairing-api.ts';
import { BodyTooLarge, readBody } from './read-body.ts';

export const WEB_UPLOADS_PATH = '/api/web/uploads';

export interface WebUploadsApiOptions {
  uploads: FileWebUploads;
  token: string;
  /** Largest body taken (`NEXUS_MEDIA_MAX_BYTES`, core's own cap). */
  maxBytes: number;
  logger: Logger;
}

const CLIENT_ID = /^[^\s]{1,128}$/;
/** What core can use, by the family its sniffer reads from the bytes. */
const KIND_OF_FAMILY: Partial<Record<string, WebUpload['kind']>> = {
  image: 'image',
  audio: 'audio',
  pdf: 'document',
  text: 'document',
};

/**
 * `POST /api/web/uploads`: the web client's files, sent as the raw request body before the
 * `message` frame that names them (frames are kept small). Same token as the web socket (Bearer),
 * plus `X-Nexus-Client-Id`: only that client may attach the upload. Optional
 * `X-Nexus-File-Name` (URI-encoded). Answers 201 `{uploadId, kind, mimeType, sizeBytes, name?}`,
 * or a JSON error: 401 (token), 400 (client id), 413 (over the cap), 415 (not an image, audio,
 * PDF or text file, judged from the bytes), 429 (the person's daily media quota is used up).
 * Returns false for other paths.
 */
export function createWebUploadsApi(options: WebUploadsApiOptions) {
  const expected = digest(options.token);
  return (request: IncomingMessage, response: ServerResponse): boolean => {
    if (requestPath(request) !== WEB_UPLOADS_PATH) return false;
    // The client may still be sending: the answer waits until the rest of the body is read and
    // dropped (a browser reads it only then; closing earlier resets the connection and loses it).
    const refuse = (status: number, code: string, message: string) =>
      refuseAfterBody(request, response, () => sendJson(response, status, { error: { code, message } }));
    if (!authorized(request.headers.authorization, expected)) {
      refuse(401, 'unauthorized', 'Send the gateway token as a Bearer token.');
      return true;
    }
    if (request.method !== 'POST') {
      response.setHeader('allow', 'POST');
      refuse(405, 'method_not_allowed', `Use POST ${WEB_UPLOADS_PATH} with the file as the body.`);
      return true;
    }
    const clientId = headerOf(request, 'x-nexus-client-id');
    if (clientId === undefined || !CLIENT_ID.test(clientId)) {
      refuse(400, 'bad_request', 'Send this client’s id in the X-Nexus-Client-Id header.');
      return true;
    }
    const tooLarge = `The file is larger than the ${formatMegabytes(options.maxBytes)} this server accepts.`;
    const declared = Number(request.headers['content-length'] ?? Number.NaN);
    if (Number.isFinite(declared) && declared > options.maxBytes) {
      refuse(413, 'attachment_too_large', tooLarge);
      return true;
    }
    readBody(request, options.maxBytes)
      .then(async (bytes) => {
        if (bytes.byteLength === 0) {
          refuse(400, 'bad_request', 'The body is empty: send the file’s bytes.');
          return;
        }
        const sniffed = sniffMediaType(bytes);
        const kind = KIND_OF_FAMILY[sniffed.family];
        if (kind === undefined) {
          refuse(415, 'attachment_unsupported', 'Only images, audio, PDFs and plain text can be sent.');
          return;
        }
        const name = fileNameOf(request);
        const upload = await options.uploads.store({
          clientId,
          bytes,
          kind,
          mimeType: sniffed.mimeType,
          ...(name === undefined ? {} : { name }),
        });
        options.logger.debug({ kind, sizeBytes: upload.sizeBytes }, 'web upload stored');
        sendJson(response, 201, upload);
      })
      .catch((error: unknown) => {
        if (response.headersSent) return;
        if (error instanceof BodyTooLarge) {
          refuse(413, 'attachment_too_large', tooLarge);
          return;
        }
        if (error instanceof NexusError && error.code === 'rate_limited') {
          // The person's daily media quota (NEXUS_MEDIA_PERSON_DAILY_BYTES).
          refuse(
            429,
            'rate_limited',
            'You have sent as many files today as this server keeps for one person; try again tomorrow.',
          );
          return;
        }
        options.logger.error({ err: error }, 'web upload failed');
        refuse(500, 'internal', 'The upload could not be stored; try again.');
      });
    return true;
  };
}

function headerOf(request: IncomingMessage, name: string): string | undefined {
  const value = request.headers[name];
  return typeof value === 'string' ? value : undefined;
}

function fileNameOf(request: IncomingMessage): string | undefined {
  const raw = headerOf(request, 'x-nexus-file-name');
  if (raw === undefined) return undefined;
  try {
    // Names are shown back to the person only; keep them short and free of path separators.
    const name = [...decodeURIComponent(raw)]
      .map((character) => (character < ' ' || character === '/' || character === '\\' ? '_' : character))
      .join('')
      .slice(0, 200);
    return name === '' ? undefined : name;
  } catch {
    return undefined;
  }
}
