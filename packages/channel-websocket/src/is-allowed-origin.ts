import type { IncomingMessage } from 'node:http';

/**
 * The one Origin rule of the web chat, for the web-socket upgrade and for the sign-in routes:
 * browsers always send Origin, and a page from another site must not ride a browser's cookie or
 * a token it found (cross-site WebSocket hijacking, cross-site requests).
 *
 * - No Origin: not a browser page (a CLI, a script); the token or cookie decides alone.
 * - A non-empty `allowedOrigins`: exactly the listed origins, compared without regard to case
 *   (scheme and host are case-insensitive; browsers send them in lower case).
 * - No list, or an empty one: only the server's own origin, the Origin's host being the request's
 *   Host. This is the stricter of the two defaults Nexus used to have (the channel used to allow
 *   any origin without a list), so a deployment that sets nothing is still protected.
 * - An Origin that is not a URL (`null` from a sandboxed frame or a file page): refused.
 */
export function isAllowedOrigin(request: IncomingMessage, allowedOrigins?: readonly string[]): boolean {
  const header = request.headers.origin;
  if (header === undefined || header === '') return true;
  if (allowedOrigins !== undefined && allowedOrigins.length > 0) {
    const origin = header.toLowerCase();
    return allowedOrigins.some((allowed) => allowed.toLowerCase() === origin);
  }
  try {
    return new URL(header).host === request.headers.host;
  } catch {
    return false;
  }
}
