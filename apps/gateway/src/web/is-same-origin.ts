import type { IncomingMessage } from 'node:http';

/**
 * Browsers always send Origin on a WebSocket upgrade; a page from another site must not be able to
 * open the chat socket with a token it found (cross-site WebSocket hijacking). Non-browser clients
 * send no Origin and authenticate with the token alone.
 */
export function isAllowedOrigin(request: IncomingMessage, allowedOrigins: string[] | undefined): boolean {
  const origin = request.headers.origin;
  if (!origin) return true;
  if (allowedOrigins && allowedOrigins.length > 0) return allowedOrigins.includes(origin);
  try {
    return new URL(origin).host === request.headers.host;
  } catch {
    return false;
  }
}
