import type { IncomingMessage } from 'node:http';
import { hostHeaderName, isLoopbackName } from '@nexus/memory';
import { authorized, digest } from './pairing-api.ts';

/** Headers a reverse proxy adds: a request carrying one came from somewhere else. */
const PROXY_HEADERS = ['x-forwarded-for', 'forwarded', 'x-real-ip', 'x-forwarded-host', 'via'];

/**
 * Whether a request may read `/metrics` and the detailed `/ready` (which tell whether the owner
 * is connected, which tools exist, the Node version). With a token: only a matching
 * `Authorization: Bearer` header. Without one: only a request from this machine addressed to
 * this machine — a loopback peer, a loopback name in `Host`, and no proxy header. The `Host`
 * check refuses a web page the owner opens whose name was re-pointed at 127.0.0.1 (DNS
 * rebinding: the browser still sends the page's name); the proxy headers refuse visitors that a
 * reverse proxy on the same host passes on. A proxy that sends neither (nginx's defaults send
 * `Host: 127.0.0.1:<port>` and no `X-Forwarded-For`) must set them, or the owner must set
 * NEXUS_METRICS_TOKEN (docs/deployment.md, "Behind a reverse proxy on the same host").
 */
export function isTrustedObserver(request: IncomingMessage, token: string | undefined): boolean {
  if (token !== undefined) return authorized(request.headers.authorization, digest(token));
  if (PROXY_HEADERS.some((name) => request.headers[name] !== undefined)) return false;
  if (!isLoopbackName(hostHeaderName(request.headers.host) ?? '')) return false;
  // An IPv4 peer on a dual-stack socket shows as ::ffff:127.0.0.1.
  return isLoopbackName((request.socket.remoteAddress ?? '').replace(/^::ffff:/iu, ''));
}
