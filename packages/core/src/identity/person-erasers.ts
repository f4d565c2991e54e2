import type { JobQueue } from '@nexus/protocol';
import type { MediaStore } from '../media/media-store.ts';
import { forgetScheduledSummaries } from '../memory/summaries/summary-schedule-memo.ts';
import type { SessionStore } from '../session-store/session-store.ts';
import type { ForgetTarget } from './person-records.ts';

/** What an eraser removed when some of it were jobs running at that moment. */
export interface ErasedItems {
  count: number;
  running: number;
}

/** One place that keeps something about people, able to delete all of it for one person. */
export interface PersonEraser {
  /** What it deletes, as the reply names it, e.g. "conversation turns". */
  kind: string;
  /**
   * Deletes everything of the target; returns how many items went, and how many of them were jobs
   * running at that moment (their handlers may still write a memory while they finish).
   */
  erase(target: ForgetTarget, options: { abortSignal?: AbortSignal }): Promise<number | ErasedItems>;
}

/** The person's turns in the session store (their messages and the replies to them). */
export function sessionStoreEraser(store: SessionStore): PersonEraser | undefined {
  const forget = store.forgetPeople?.bind(store);
  if (!forget) return undefined;
  return { kind: 'conversation turns', erase: (target) => forget({ userIds: target.userIds }) };
}

/**
 * Jobs whose payload carries one of the person's ids: waiting, delayed, parked (failed) and
 * completed-but-kept ones. A queue that cannot purge fails loudly instead of being skipped.
 */
export function jobQueueEraser(queue: JobQueue, kind = 'background jobs'): PersonEraser {
  return {
    kind,
    async erase(target, { abortSignal }) {
      if (!queue.purgePayloads) throw new Error(`The ${kind} queue cannot purge payloads.`);
      const result = await queue.purgePayloads({
        values: target.userIds,
        ...(abortSignal ? { abortSignal } : {}),
      });
      // The purge may have taken waiting summary jobs that later turns were relying on.
      forgetScheduledSummaries();
      return { count: result.removed, running: result.running };
    },
  };
}

/**
 * Photos, voice notes and documents kept in the media store under any of the person's ids: each
 * turn's files are kept under the person it ran for, and a linked account's own earlier files
 * under its home id, which the target also carries.
 */
export function mediaStoreEraser(store: MediaStore): PersonEraser {
  return { kind: 'media files', erase: (target) => store.forget(target.userIds) };
}
