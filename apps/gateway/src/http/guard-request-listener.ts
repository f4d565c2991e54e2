import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Logger } from '@nexus/protocol';

type RequestListener = (request: IncomingMessage, response: ServerResponse) => unknown;
type UpgradeListener = (request: IncomingMessage, socket: Duplex, head: Buffer) => unknown;

const INTERNAL_ERROR = JSON.stringify({
  error: { code: 'internal', message: 'The gateway failed to answer; see its log.' },
});

/**
 * Every request listener goes through this: a synchronous throw or a rejected promise becomes a
 * logged 500 (or, once the answer has started, a closed connection), never an exception that
 * escapes into Node's event loop and ends the process with every conversation in it.
 */
export function guardRequestListener(listener: RequestListener, logger: Logger): RequestListener {
  const fail = (request: IncomingMessage, response: ServerResponse, error: unknown) => {
    logger.error(
      { err: error, method: request.method, url: request.url?.slice(0, 200) },
      'HTTP handler failed',
    );
    if (response.headersSent || response.destroyed) {
      response.destroy();
      return;
    }
    response.writeHead(500, {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(INTERNAL_ERROR),
      'cache-control': 'no-store',
      connection: 'close',
    });
    response.end(INTERNAL_ERROR);
  };
  return (request, response) => {
    try {
      const result = listener(request, response);
      if (result instanceof Promise) result.catch((error: unknown) => fail(request, response, error));
    } catch (error) {
      fail(request, response, error);
    }
  };
}

/** `guardRequestListener` for `upgrade`: a failing handler answers 500 on the raw socket and closes it. */
export function guardUpgradeListener(listener: UpgradeListener, logger: Logger): UpgradeListener {
  const fail = (request: IncomingMessage, socket: Duplex, error: unknown) => {
    logger.error({ err: error, url: request.url?.slice(0, 200) }, 'HTTP upgrade handler failed');
    if (socket.destroyed) return;
    if (!socket.writable) {
      socket.destroy();
      return;
    }
    socket.once('finish', () => socket.destroy());
    socket.end('HTTP/1.1 500 Internal Server Error\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
  };
  return (request, socket, head) => {
    // An upgrade socket has no error listener of its own until a handler adds one; a reset
    // connection must not become an uncaught 'error' event.
    socket.on('error', () => socket.destroy());
    try {
      const result = listener(request, socket, head);
      if (result instanceof Promise) result.catch((error: unknown) => fail(request, socket, error));
    } catch (error) {
      fail(request, socket, error);
    }
  };
}
