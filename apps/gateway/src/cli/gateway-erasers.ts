import { jobQueueEraser, type PersonEraser, type SessionStore, sessionStoreEraser } from '@nexus/core';
import type { JobQueue } from '@nexus/protocol';

/**
 * Everything `/forget-me` and `nexus users forget` erase besides memories and the access records:
 * the person's turns, the memory jobs carrying their text, and (with Redis) their agent runs and
 * reply streams. One list, so the gateway and the owner's CLI can never forget different things.
 */
export function gatewayErasers(options: {
  sessionStore: SessionStore;
  memoryQueue: JobQueue;
  redis?: PersonEraser;
}): PersonEraser[] {
  const erasers: PersonEraser[] = [];
  const turns = sessionStoreEraser(options.sessionStore);
  if (turns) erasers.push(turns);
  // Redis first: it needs the ids of the agent-run jobs to find their streams, and when memory
  // jobs also live on Redis the same pass takes them.
  if (options.redis) erasers.push(options.redis);
  erasers.push(jobQueueEraser(options.memoryQueue, 'memory jobs'));
  return erasers;
}
