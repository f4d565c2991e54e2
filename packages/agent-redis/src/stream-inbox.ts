import { type Logger, silentLogger } from '@nexus/protocol';
import type { Redis } from 'ioredis';

/** Entries a writer keeps at most in an inbox whose reader is gone (approximate trim). */
const INBOX_MAX_ENTRIES = 50_000;

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
  let stopped = false;
  let lastId = '$';

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
        // Read entries are deleted at once: a stream would otherwise keep every reply's text (up
        // to 50,000 entries) long after it was delivered.
        if (entries.length > 0) {
          commands
            .xdel(key, ...entries.map(([id]) => id))
            .catch((error: unknown) => logger.warn({ err: error, key }, 'inbox trim failed'));
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
      reader.disconnect();
      await loop;
      await commands.del(key).catch(() => undefined);
    },
  };
}

/** Appends one message to an inbox; the TTL is renewed so an abandoned inbox still goes away. */
export async function sendToInbox(
  commands: Redis,
  key: string,
  message: unknown,
  ttlMs = 120_000,
): Promise<void> {
  const results = await commands
    .multi()
    .xadd(key, 'MAXLEN', '~', INBOX_MAX_ENTRIES, '*', 'm', JSON.stringify(message))
    .pexpire(key, ttlMs)
    .exec();
  const failure = results?.find(([error]) => error)?.[0];
  if (failure) throw failure;
}
