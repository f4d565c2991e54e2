import type { MemoryPort } from '@nexus/protocol';
import {
  type JobProcessor,
  type JobQueue,
  type Logger,
  PermanentJobError,
  silentLogger,
} from '@nexus/protocol';
import { generateText, type LanguageModel } from 'ai';
import type { SessionStore, StoredTurn } from '../../session-store/session-store.ts';
import { modelCallTelemetry } from '../../tracing/model-call-telemetry.ts';
import { type RepliesFirst, waitWhileRepliesQueue } from '../background/replies-first.ts';
import {
  enqueueSessionSummary,
  isSummary,
  SESSION_SUMMARY_JOB,
  SESSION_SUMMARY_KIND,
  type SessionSummaryPayload,
  sessionSummaryPayloadSchema,
  summarySessionId,
} from './session-summary-job.ts';

export interface SessionSummaryWorkerOptions {
  queue: JobQueue;
  memory: MemoryPort;
  model: LanguageModel;
  /** Where the conversation is read from: the summary worker runs where the sessions live. */
  sessionStore: SessionStore;
  /** Turns summarised at most (the newest). Default 30. */
  maxTurns?: number;
  logger?: Logger;
  /** In the process that runs the turns: each job first waits (bounded) while turns wait for a slot. */
  repliesFirst?: RepliesFirst;
}

export const SESSION_SUMMARY_INSTRUCTIONS = `You write a short summary of a conversation between a person and an assistant, so the assistant can pick it up again later.
In at most 5 sentences, say what was discussed, what was decided or promised, and what is still open. Write in the language of the conversation. Plain text only, no headings, no lists.`;

const MAX_SUMMARY_CHARS = 2_000;
/** A shorter summary says nothing a resumed conversation needs ("The person said hi."); not stored. */
export const MIN_SUMMARY_CHARS = 100;

/**
 * Handles `memory.summarize`: when a conversation went quiet, stores a short summary of it as a
 * session-scope memory (replacing the previous one), which the memory step brings back when the
 * conversation resumes. Idempotent: a summary already written for the same last turn is kept.
 */
export function startSessionSummaryWorker(options: SessionSummaryWorkerOptions): JobProcessor {
  const logger = (options.logger ?? silentLogger).child({ component: 'session-summary' });
  const maxTurns = options.maxTurns ?? 30;
  return options.queue.process({
    name: SESSION_SUMMARY_JOB,
    concurrency: 1,
    handler: async (job) => {
      const parsed = sessionSummaryPayloadSchema.safeParse(job.payload);
      if (!parsed.success) {
        throw new PermanentJobError({
          code: 'invalid_intent',
          message: `memory.summarize: invalid payload: ${parsed.error.issues[0]?.message ?? 'unknown shape'}`,
        });
      }
      const { userId, sessionId } = parsed.data;
      const abortSignal = job.abortSignal;
      const jobLogger = logger.child({ jobId: job.id, conversationId: sessionId });
      // Before reading the conversation, so a turn that comes in meanwhile is read (or moves the job on).
      await waitWhileRepliesQueue(options.repliesFirst, abortSignal);
      const turns = await options.sessionStore.history({ conversationKey: sessionId, limit: maxTurns });
      const lastIntentId = await summaryDue({
        queue: options.queue,
        payload: parsed.data,
        turns,
        abortSignal,
      });
      if (lastIntentId === undefined) {
        jobLogger.debug(
          {},
          'conversation not quiet long enough, or went on after this job was scheduled; a later job summarises it',
        );
        return;
      }
      const previous = (
        await options.memory.list({
          userId,
          scope: 'session',
          sessionId: summarySessionId(sessionId),
          limit: 20,
          abortSignal,
        })
      ).filter(isSummary);
      if (previous.some((memory) => memory.metadata.throughIntentId === lastIntentId)) return;
      const transcript = transcriptOf(
        turns.filter((turn) => turn.outcome === 'ok' && turn.kind !== 'note' && turn.userId === userId),
      );
      if (!transcript) return;
      let summary: string;
      try {
        const result = await generateText({
          model: options.model,
          instructions: SESSION_SUMMARY_INSTRUCTIONS,
          messages: [{ role: 'user', content: transcript }],
          temperature: 0,
          maxOutputTokens: 400,
          maxRetries: 1,
          telemetry: modelCallTelemetry(),
          abortSignal,
        });
        summary = result.text.trim().slice(0, MAX_SUMMARY_CHARS);
      } catch (error) {
        jobLogger.warn({ err: error }, 'session summary: model call failed');
        throw error;
      }
      if (summary.length < MIN_SUMMARY_CHARS) {
        jobLogger.info({ characters: summary.length }, 'session summary too short to be worth keeping');
        return;
      }
      const added = await options.memory.add({
        userId,
        scope: 'session',
        sessionId: summarySessionId(sessionId),
        content: summary,
        category: 'event',
        source: 'inferred',
        metadata: { kind: SESSION_SUMMARY_KIND, throughIntentId: lastIntentId },
        abortSignal,
      });
      for (const old of previous) {
        if (old.id !== added.memory.id) await options.memory.delete({ userId, id: old.id, abortSignal });
      }
      jobLogger.info({ turns: turns.length, characters: summary.length }, 'session summary stored');
    },
  });
}

/**
 * The turn to summarise through, or undefined when this job is not to summarise now. A job with
 * `idleMs` summarises once the newest turn is that old, else schedules the conversation's job again
 * for then (turns within `idleMs` of the scheduling one leave the job where it was: see
 * `summary-schedule-memo.ts`). A job of an earlier version, without it, stands down when the
 * conversation went on after its turn (a later job summarises it).
 */
async function summaryDue(options: {
  queue: JobQueue;
  payload: SessionSummaryPayload;
  turns: readonly StoredTurn[];
  abortSignal: AbortSignal;
}): Promise<string | undefined> {
  const { payload, turns } = options;
  const newest = turns.at(-1);
  if (payload.idleMs === undefined)
    return newest?.intentId === payload.lastIntentId ? newest.intentId : undefined;
  if (!newest) return undefined;
  const quietAt = Math.max(...turns.map((turn) => turn.createdAt)) + payload.idleMs;
  const now = Date.now();
  if (now >= quietAt) return newest.intentId;
  await enqueueSessionSummary({
    queue: options.queue,
    payload: { ...payload, lastIntentId: newest.intentId },
    delayMs: Math.ceil(quietAt - now),
    abortSignal: options.abortSignal,
  });
  return undefined;
}

function transcriptOf(turns: StoredTurn[]): string {
  return turns
    .map((turn) => `Person: ${turn.userText}\nAssistant: ${turn.replyText}`)
    .join('\n\n')
    .slice(-24_000);
}
