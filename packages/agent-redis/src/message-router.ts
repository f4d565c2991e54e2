import { type Logger, silentLogger } from '@nexus/protocol';
import type { z } from 'zod';

export interface MessageRouter<T> {
  /** Feeds one raw inbox message: validated, then handed to the handler registered for its key. */
  dispatch(raw: unknown): void;
  register(key: string, handler: (message: T) => void): void;
  unregister(key: string): void;
}

/**
 * Routes the messages of one inbox to whoever waits for them (a turn on the gateway, a run on a
 * worker). Messages for nobody — a run that already ended, a superseded attempt — are dropped.
 */
export function createMessageRouter<T>(options: {
  schema: z.ZodType<T>;
  keyOf: (message: T) => string;
  logger?: Logger;
}): MessageRouter<T> {
  const logger = options.logger ?? silentLogger;
  const handlers = new Map<string, (message: T) => void>();
  return {
    dispatch(raw) {
      if (typeof raw === 'object' && raw !== null && (raw as { kind?: unknown }).kind === 'open') return;
      const parsed = options.schema.safeParse(raw);
      if (!parsed.success) {
        logger.warn({ issue: parsed.error.issues[0]?.message }, 'malformed inbox message dropped');
        return;
      }
      handlers.get(options.keyOf(parsed.data))?.(parsed.data);
    },
    register(key, handler) {
      handlers.set(key, handler);
    },
    unregister(key) {
      handlers.delete(key);
    },
  };
}
