import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

/**
 * Whether a request may read `/metrics` and the detailed `/ready` (which tell whether the owner
 * is connected, which tools exist, the Node version). With a token: only a matching
 * `Authorization: Bearer` header. Without one: only a request from this machine — a loopback
 * peer that carries no proxy forwarding header, since a reverse proxy on the same host would
 * otherwise make every visitor look local.
 */
export function isTrustedObserver(request: IncomingMessage, token: string | undefined): boolean {
  if (token !== undefined) {
    const given = /^Bearer\s+(\S+)\s*$/iu.exec(request.headers.authorization ?? '')?.[1];
    return given !== undefined && sameSecret(given, token);
  }
  if (request.headers['x-forwarded-for'] !== undefined || request.headers.forwarded !== undefined)
    return false;
  return isLoopbackAddress(request.socket.remoteAddress ?? '');
}

function isLoopbackAddress(address: string): boolean {
  const bare = address.replace(/^::ffff:/iu, '');
  return bare === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/u.test(bare);
}

/** Constant-time comparison of two secrets of any length (hashed to one length first). */
function sameSecret(given: string, expected: string): boolean {
  const digest = (value: string) => createHash('sha256').update(value).digest();
  return timingSafeEqual(digest(given), digest(expected));
}
