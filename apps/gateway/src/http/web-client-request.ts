import type { IncomingMessage, ServerResponse } from 'node:http';
import { z } from 'zod';
import { authorized, sendJson } from './pairing-api.ts';

/** The web client names itself with this header; its data is that web person's (or who they linked to). */
export const WEB_CLIENT_HEADER = 'x-nexus-client';

const clientIdSchema = z.string().min(1).max(128);

/**
 * The checks every web-client API makes first: the gateway token as a Bearer token (401) and the
 * browser's client id in `X-Nexus-Client` (400). Returns the client id, or undefined once the
 * refusal has been sent.
 */
export function webClientOf(
  request: IncomingMessage,
  response: ServerResponse,
  expectedTokenDigest: Buffer,
): string | undefined {
  if (!authorized(request.headers.authorization, expectedTokenDigest)) {
    sendJson(response, 401, {
      error: { code: 'unauthorized', message: 'Send the gateway token as a Bearer token.' },
    });
    return undefined;
  }
  const client = clientIdSchema.safeParse(request.headers[WEB_CLIENT_HEADER]);
  if (!client.success) {
    sendJson(response, 400, {
      error: { code: 'bad_request', message: `Send the web client's id in the ${WEB_CLIENT_HEADER} header.` },
    });
    return undefined;
  }
  return client.data;
}
