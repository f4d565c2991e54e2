import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { requestPath } from '@nexus/limits-kit';
import type { Logger } from '@nexus/protocol';
import type { GatewayParts, GatewayState } from '../composition/gateway-parts.ts';
import { isAllowedOrigin } from '../web/is-same-origin.ts';
import { guardUpgradeListener } from './guard-request-listener.ts';

/** The server's `upgrade` listener: the web socket, or a plain refusal that closes the connection. */
export function webSocketUpgrade(
  parts: Pick<GatewayParts, 'config' | 'web' | 'webSession'>,
  state: GatewayState,
  logger: Logger,
): (request: IncomingMessage, socket: Duplex, head: Buffer) => void {
  const { config, web, webSession } = parts;
  return guardUpgradeListener((request, socket, head) => {
    if (state.stopping) {
      socket.end('HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\n\r\n');
      return;
    }
    if (requestPath(request) === undefined) {
      socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n');
      return;
    }
    if (!isAllowedOrigin(request, config.web.allowedOrigins)) {
      socket.end('HTTP/1.1 403 Forbidden\r\nConnection: close\r\n\r\n');
      return;
    }
    webSession.admit(request);
    if (!web.handleUpgrade(request, socket, head))
      socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\n\r\n');
  }, logger);
}
