import type { Logger } from '@nexus/protocol';
import { pino } from 'pino';
import type { GatewayConfig } from './gateway-config.ts';

/**
 * JSON lines by default (what log shippers want), pretty on a terminal (what people want).
 * Secrets and raw platform payloads are redacted wherever they appear in a log object.
 */
export function createLogger(config: GatewayConfig['log'], destination?: NodeJS.WritableStream): Logger {
  const pretty = config.pretty ?? (destination === undefined && process.stdout.isTTY === true);
  const options = {
    level: config.level,
    base: { service: 'nexus' },
    redact: {
      paths: ['*.apiKey', '*.token', '*.raw', 'apiKey', 'token', 'raw', 'headers.authorization'],
      censor: '[redacted]',
    },
  };
  if (pretty) {
    return pino({
      ...options,
      transport: { target: 'pino-pretty', options: { colorize: true, translateTime: 'HH:MM:ss' } },
    });
  }
  return destination ? pino(options, destination as pino.DestinationStream) : pino(options);
}
