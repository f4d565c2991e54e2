import {
  jobQueueEraser,
  type MediaStore,
  mediaStoreEraser,
  type PersonEraser,
  type SessionStore,
  sessionStoreEraser,
} from '@nexus/core';
import type { JobQueue } from '@nexus/protocol';
import type { FileWebUploads } from '../web-uploads/file-web-uploads.ts';

/**
 * Everything `/forget-me` and `nexus users forget` erase besides memories and the access records:
 * the person's turns, the memory jobs carrying their text, (with Redis) their agent runs and
 * reply streams, and the photos, voice notes and files they sent. One list, so the gateway and
 * the owner's CLI can never forget different things.
 */
export function gatewayErasers(options: {
  sessionStore: SessionStore;
  memoryQueue: JobQueue;
  media: MediaStore;
  webUploads: FileWebUploads;
  redis?: PersonEraser;
}): PersonEraser[] {
  const erasers: PersonEraser[] = [];
  const turns = sessionStoreEraser(options.sessionStore);
  if (turns) erasers.push(turns);
  // Redis first: it needs the ids of the agent-run jobs to find their streams, and when memory
  // jobs also live on Redis the same pass takes them.
  if (options.redis) erasers.push(options.redis);
  erasers.push(jobQueueEraser(options.memoryQueue, 'memory jobs'));
  const webUploads = options.webUploads;
  erasers.push({ kind: 'web upload records', erase: (target) => webUploads.forget(target) });
  erasers.push(mediaStoreEraser(options.media));
  return erasers;
}
