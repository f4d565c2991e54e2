import { type Logger, silentLogger } from '@nexus/protocol';
import type { Redis } from 'ioredis';

/** Entries a writer keeps at most in an inbox whose reader is gone (approximate trim). */
const INBOX_MAX_ENTRIES = 50_000;
/** How long read entries stay before the reader trims them, all in one command. */
const TRIM_AFTER_MS = 250;

export interface StreamInboxOptions {
  /** A connection for this inbox alone: XREAD BLOCK holds it. The inbox closes it on `close()`. */
  reader: Redis;
  /** Shared connection for the TTL refresh. */
  commands: Redis;
  key: string;
  onMessage: (message: unknown) => void;
  /** The key expires this long after its reader stopped refreshing it (a crashed process). */
  ttlMs?: number;
  blockMs?: number;
  /** Read entries are removed at most this long after they were read (default 250 ms). */
  trimAfterMs?: number;
  logger?: Logger;
}

export interface StreamInbox {
  readonly key: string;
  close(): Promise<void>;
}

/**
 * One Redis stream read by one process: the messages addressed to it (reply events for a
 * gateway, tool results and cancellations for a worker). A stream rather than pub/sub, so a
 * message written while the reader was between two reads is not lost.
 */
export async function openStreamInbox(options: StreamInboxOptions): Promise<StreamInbox> {
  const { reader, commands, key } = options;
  const logger = options.logger ?? silentLogger;
  const ttlMs = options.ttlMs ?? 120_000;
  const blockMs = options.blockMs ?? 2000;
  const trimAfterMs = options.trimAfterMs ?? TRIM_AFTER_MS;
  let stopped = false;
  let lastId = '$';
  // Read entries are removed soon after, all of them with one XTRIM: a stream would otherwise
  // keep every reply's text (up to 50,000 entries) long after it was delivered, and one XDEL per
  // read was one more Redis round of commands per reply event on a busy gateway.
  let trimTimer: NodeJS.Timeout | undefined;
  const trimRead = () => {
    trimTimer = undefined;
    // Entry ids only grow, and every id up to `lastId` has been read: trim below its successor.
    commands
      .xtrim(key, 'MINID', streamIdAfter(lastId))
      .catch((error: unknown) => logger.warn({ err: error, key }, 'inbox trim failed'));
  };

  // Create the stream now (with an entry the reader skips) so its TTL is set before anyone writes.
  lastId = String(await commands.xadd(key, '*', 'm', '{"kind":"open"}'));
  await commands.pexpire(key, ttlMs);
  const refresh = setInterval(() => {
    commands
      .pexpire(key, ttlMs)
      .catch((error: unknown) => logger.warn({ err: error, key }, 'inbox TTL refresh failed'));
  }, ttlMs / 4);
  refresh.unref();

  const loop = (async () => {
    while (!stopped) {
      let batches: [string, [string, string[]][]][] | null;
      try {
        batches = (await reader.xread(
          'COUNT',
          500,
          'BLOCK',
          blockMs,
          'STREAMS',
          key,
          lastId,
        )) as typeof batches;
      } catch (error) {
        if (stopped) return;
        logger.warn({ err: error, key }, 'inbox read failed; retrying');
        await new Promise((resolve) => setTimeout(resolve, 200));
        continue;
      }
      for (const [, entries] of batches ?? []) {
        if (entries.length > 0 && !stopped && !trimTimer) {
          trimTimer = setTimeout(trimRead, trimAfterMs);
          trimTimer.unref();
        }
        for (const [id, fields] of entries) {
          lastId = id;
          const raw = fields[1];
          if (raw === undefined) continue;
          let message: unknown;
          try {
            message = JSON.parse(raw);
          } catch {
            logger.warn({ key, id }, 'inbox entry is not JSON; skipped');
            continue;
          }
          try {
            options.onMessage(message);
          } catch (error) {
            logger.error({ err: error, key }, 'inbox handler threw');
          }
        }
      }
    }
  })();

  return {
    key,
    async close() {
      if (stopped) return;
      stopped = true;
      clearInterval(refresh);
      clearTimeout(trimTimer);
      reader.disconnect();
      await loop;
      await commands.del(key).catch(() => undefined);
    },
  };
}

/**
 * Appends one message to an inbox; the TTL is renewed so an abandoned inbox still goes away. Two
 * commands sent together (the connection keeps their order) rather than a MULTI: a message is
 * sent per reply event, and the transaction's wrapping cost the sender about a fifth more CPU.
 */
export async function sendToInbox(
  commands: Redis,
  key: string,
  message: unknown,
  ttlMs = 120_000,
): Promise<void> {
  await Promise.all([
    commands.xadd(key, 'MAXLEN', '~', INBOX_MAX_ENTRIES, '*', 'm', JSON.stringify(message)),
    commands.pexpire(key, ttlMs),
  ]);
}

/** The smallest stream entry id above `id` (`<ms>-<seq>`). */
export function streamIdAfter(id: string): string {
  const [ms, seq] = id.split('-');
  return `${ms}-${BigInt(seq ?? '0') + 1n}`;
}
