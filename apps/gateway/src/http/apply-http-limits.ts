import type { Server, ServerOptions } from 'node:http';
import type { Logger } from '@nexus/protocol';

export interface HttpLimits {
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  keepAliveTimeoutMs: number;
  maxConnections: number;
}

/**
 * `createServer` options for the limits: a client that trickles its headers or body is cut off
 * after the timeouts. Node checks those deadlines on a timer (every 30 s by default), which would
 * let a slow sender hold a connection far past them; the check runs at least every second here.
 */
export function httpServerOptions(limits: HttpLimits): ServerOptions {
  return {
    headersTimeout: limits.headersTimeoutMs,
    requestTimeout: limits.requestTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    connectionsCheckingInterval: Math.max(100, Math.min(1000, Math.floor(limits.headersTimeoutMs / 4))),
  };
}

/** The connection cap, with one warning per minute while connections are being dropped. */
export function applyConnectionLimit(server: Server, limits: HttpLimits, logger: Logger): void {
  server.maxConnections = limits.maxConnections;
  let dropped = 0;
  let lastWarning = 0;
  server.on('drop', () => {
    dropped += 1;
    const now = Date.now();
    if (now - lastWarning < 60_000) return;
    lastWarning = now;
    logger.warn(
      { maxConnections: limits.maxConnections, droppedSinceLastWarning: dropped },
      'HTTP connection limit reached: dropping new connections (NEXUS_HTTP_MAX_CONNECTIONS)',
    );
    dropped = 0;
  });
}
