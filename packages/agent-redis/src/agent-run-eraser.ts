import type { PersonEraser } from '@nexus/core';
import type { JobQueue } from '@nexus/protocol';
import type { Redis } from 'ioredis';
import { agentRunKeys } from './agent-run-protocol.ts';

/**
 * Forgets a person's agent runs on Redis: the jobs that carry their ids (agent runs, and memory
 * jobs when those go through Redis too) in every state BullMQ keeps, then the run messages of
 * those turns, and of their recent turns whose jobs completed and were deleted (`personTurns`),
 * still in any gateway or worker inbox stream (reply text, tool calls and results), and the
 * turns' `done` markers.
 */
export function agentRunEraser(options: { queue: JobQueue; commands: Redis; prefix: string }): PersonEraser {
  const keys = agentRunKeys(options.prefix);
  return {
    kind: 'queued work and reply streams on Redis',
    async erase(target, { abortSignal }) {
      const { queue, commands } = options;
      if (!queue.purgePayloads) throw new Error('The Redis job queue cannot purge payloads.');
      const purged = await queue.purgePayloads({
        values: target.userIds,
        ...(abortSignal ? { abortSignal } : {}),
      });
      const turnIds = new Set(purged.jobIds);
      let removed = purged.removed;
      // Turns whose jobs were already deleted on completion (see `personTurns`).
      for (const userId of target.userIds) {
        const personTurns = keys.personTurns(userId);
        for (const turnId of await commands.smembers(personTurns)) turnIds.add(turnId);
        removed += await commands.del(personTurns);
      }
      if (turnIds.size === 0) return { count: removed, running: purged.running };
      const runIds = new Set<string>();
      const streams = await scanKeys(commands, `${options.prefix}:agent-run:gateway:*`);
      const workerStreams = await scanKeys(commands, `${options.prefix}:agent-run:worker:*`);
      // Gateway inboxes first: their `start` messages name the run ids worker inboxes are keyed by.
      removed += await deleteEntries(commands, streams, (message) => {
        if (!turnIds.has(String(message.turnId))) return false;
        if (typeof message.runId === 'string') runIds.add(message.runId);
        return true;
      });
      removed += await deleteEntries(commands, workerStreams, (message) => runIds.has(String(message.runId)));
      for (const turnId of turnIds) removed += await commands.del(keys.done(turnId));
      return { count: removed, running: purged.running };
    },
  };
}

async function scanKeys(commands: Redis, pattern: string): Promise<string[]> {
  const found: string[] = [];
  let cursor = '0';
  do {
    const [next, batch] = await commands.scan(cursor, 'MATCH', pattern, 'COUNT', 500);
    cursor = next;
    found.push(...batch);
  } while (cursor !== '0');
  return found;
}

async function deleteEntries(
  commands: Redis,
  streams: readonly string[],
  matches: (message: Record<string, unknown>) => boolean,
): Promise<number> {
  let removed = 0;
  for (const stream of streams) {
    const entries = await commands.xrange(stream, '-', '+');
    const ids = entries
      .filter(([, fields]) => {
        try {
          const message: unknown = JSON.parse(fields[1] ?? 'null');
          return (
            typeof message === 'object' && message !== null && matches(message as Record<string, unknown>)
          );
        } catch {
          return false;
        }
      })
      .map(([id]) => id);
    if (ids.length > 0) removed += await commands.xdel(stream, ...ids);
  }
  return removed;
}
