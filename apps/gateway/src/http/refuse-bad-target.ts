import type { IncomingMessage, ServerResponse } from 'node:http';
import { parseRequestTarget } from '@nexus/limits-kit';

const BODY = JSON.stringify({
  error: { code: 'bad_request', message: 'The request target is not a path this server serves.' },
});

/**
 * The front door of every route: a target `parseRequestTarget` cannot use (`*`, `host:port`, a
 * foreign scheme, control characters) gets a 400 here, so no route ever sees it. Returns true
 * when it answered.
 */
export function refuseBadTarget(request: IncomingMessage, response: ServerResponse): boolean {
  if (parseRequestTarget(request.url) !== undefined) return false;
  // The body, if any, is not read: the connection closes after the answer.
  response.writeHead(400, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(BODY),
    'cache-control': 'no-store',
    connection: 'close',
  });
  response.end(BODY);
  return true;
}
