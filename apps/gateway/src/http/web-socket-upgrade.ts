import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { WebSocketChannel } from '@nexus/channel-websocket';
import { requestPath } from '@nexus/limits-kit';
import type { Logger } from '@nexus/protocol';
import { guardUpgradeListener } from './guard-request-listener.ts';
import type { WebSessionApi } from './web-session-api.ts';

/**
 * The server's `upgrade` listener: the web socket, or a plain refusal that closes the connection.
 * The browser Origin is checked once, by the channel (`isAllowedOrigin` of @nexus/channel-websocket,
 * with the gateway's `web.allowedOrigins`), which refuses a foreign one with 403.
 */
export function webSocketUpgrade(
  parts: { web: WebSocketChannel; webSession: WebSessionApi },
  state: { readonly stopping: boolean },
  logger: Logger,
): (request: IncomingMessage, socket: Duplex, head: Buffer) => void {
  const { web, webSession } = parts;
  return guardUpgradeListener((request, socket, head) => {
    if (state.stopping) {
      socket.end('HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\n\r\n');
      return;
    }
    if (requestPath(request) === undefined) {
      socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n');
      return;
    }
    webSession.admit(request);
    if (!web.handleUpgrade(request, socket, head))
      socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\n\r\n');
  }, logger);
}
