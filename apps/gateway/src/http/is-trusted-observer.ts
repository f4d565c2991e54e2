import type { IncomingMessage } from 'node:http';
import { isLoopbackName } from '@nexus/memory';
import { authorized, digest } from './pairing-api.ts';

/**
 * Whether a request may read `/metrics` and the detailed `/ready` (which tell whether the owner
 * is connected, which tools exist, the Node version). With a token: only a matching
 * `Authorization: Bearer` header. Without one: only a request from this machine — a loopback
 * peer that carries no proxy forwarding header, since a reverse proxy on the same host would
 * otherwise make every visitor look local.
 */
export function isTrustedObserver(request: IncomingMessage, token: string | undefined): boolean {
  if (token !== undefined) return authorized(request.headers.authorization, digest(token));
  if (request.headers['x-forwarded-for'] !== undefined || request.headers.forwarded !== undefined)
    return false;
  // An IPv4 peer on a dual-stack socket shows as ::ffff:127.0.0.1.
  return isLoopbackName((request.socket.remoteAddress ?? '').replace(/^::ffff:/iu, ''));
}
