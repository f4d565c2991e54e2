import type { Logger } from '@nexus/protocol';
import type { SocketConfig } from '@whiskeysockets/baileys';

/** Baileys' `ILogger`, which its package root does not export by name. */
export type BaileysLogger = SocketConfig['logger'];

function asObject(value: unknown): object {
  if (typeof value === 'object' && value !== null) return value;
  return { detail: value };
}

/**
 * Baileys wants a pino-shaped logger (`level`, `trace`). Its own lines are mostly noise for an
 * operator, so `trace` and `debug` both go to debug and Baileys' info is demoted to debug too;
 * warnings and errors pass through with a `component: 'baileys'` binding.
 */
export function toBaileysLogger(logger: Logger): BaileysLogger {
  const adapt = (target: Logger): BaileysLogger => ({
    level: 'info',
    child(bindings) {
      return adapt(target.child(bindings));
    },
    trace(object, message) {
      target.debug(asObject(object), message);
    },
    debug(object, message) {
      target.debug(asObject(object), message);
    },
    info(object, message) {
      target.debug(asObject(object), message);
    },
    warn(object, message) {
      target.warn(asObject(object), message);
    },
    error(object, message) {
      target.error(asObject(object), message);
    },
  });
  return adapt(logger.child({ component: 'baileys' }));
}
