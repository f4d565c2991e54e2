import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { AccessError, type AccessStore } from '@nexus/core';
import { requestPath } from '@nexus/limits-kit';
import type { Logger } from '@nexus/protocol';
import { readJsonBody } from './read-json-body.ts';

export const PAIRING_API_PATH = '/api/pairing';

const MAX_BODY_BYTES = 1024;

/**
 * The web admin view's HTTP API, behind the gateway token (`Authorization: Bearer`):
 * `GET /api/pairing` lists pending requests, `POST /api/pairing/approve` and `/reject` take
 * `{"code": "…"}`. No cookies and no CORS, so another site cannot drive it from a browser.
 * Returns false for other paths.
 */
export function createPairingApi(options: { store: AccessStore; token: string; logger: Logger }) {
  const expected = digest(options.token);
  return (request: IncomingMessage, response: ServerResponse): boolean => {
    const path = requestPath(request);
    if (path === undefined) return false;
    if (path !== PAIRING_API_PATH && !path.startsWith(`${PAIRING_API_PATH}/`)) return false;
    if (!authorized(request.headers.authorization, expected)) {
      sendJson(response, 401, {
        error: { code: 'unauthorized', message: 'Send the gateway token as a Bearer token.' },
      });
      return true;
    }
    if (path === PAIRING_API_PATH && request.method === 'GET') {
      sendJson(response, 200, { requests: options.store.pairing.list() });
      return true;
    }
    const action = path.slice(PAIRING_API_PATH.length + 1);
    if (request.method !== 'POST' || (action !== 'approve' && action !== 'reject')) {
      sendJson(response, 404, {
        error: { code: 'not_found', message: 'Use GET /api/pairing or POST /api/pairing/approve|reject.' },
      });
      return true;
    }
    readJsonBody(request, MAX_BODY_BYTES)
      .then(
        (body) => {
          const code = typeof body === 'object' && body !== null && 'code' in body ? body.code : undefined;
          if (typeof code !== 'string') {
            sendJson(response, 400, {
              error: { code: 'bad_request', message: 'Send {"code": "<pairing code>"}.' },
            });
            return;
          }
          try {
            if (action === 'approve') {
              const { request: approved, identity } = options.store.pairing.approve({ code });
              options.logger.info(
                { code: approved.code, userId: identity.userId },
                'pairing approved in the web admin view',
              );
              sendJson(response, 200, { approved, identity });
            } else {
              const rejected = options.store.pairing.reject({ code });
              options.logger.info({ code: rejected.code }, 'pairing rejected in the web admin view');
              sendJson(response, 200, { rejected });
            }
          } catch (error) {
            if (!(error instanceof AccessError)) throw error;
            sendJson(response, error.reason === 'expired_code' ? 410 : 404, {
              error: { code: error.reason, message: error.message },
            });
          }
        },
        (error: unknown) => {
          sendJson(response, 400, {
            error: {
              code: 'bad_request',
              message: error instanceof Error ? error.message : 'unreadable body',
            },
          });
        },
      )
      .catch((error: unknown) => {
        options.logger.error({ err: error }, 'pairing API failed');
        if (!response.headersSent)
          sendJson(response, 500, { error: { code: 'internal', message: 'The access store failed.' } });
      });
    return true;
  };
}

/** Hashing both sides lets `timingSafeEqual` compare tokens of any length in constant time. */
export function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

/** The admin routes' one check: `Authorization: Bearer <gateway token>` (see `digest`). */
export function authorized(header: string | undefined, expected: Buffer): boolean {
  const match = /^Bearer\s+(\S+)$/i.exec(header ?? '');
  return match !== null && timingSafeEqual(digest(match[1]!), expected);
}

/** Admin answers carry tokens' worth of secrets (codes, QR payloads): never cached, never sniffed. */
export function sendJson(response: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
  });
  response.end(text);
}
