import type { TokenCounter } from '@nexus/limits-kit';
import type { Intent, JobQueue, Logger, MemoryPort } from '@nexus/protocol';
import type { StoredTurn } from '../../session-store/session-store.ts';
import {
  enqueueMemoryExtraction,
  type MemoryExtractionPayload,
} from '../extraction/memory-extraction-job.ts';
import { GROUP_MEMORY_NOTE, type GroupPersonalMemoryEntry, memorySubjectOf } from '../memory-subject.ts';
import { scheduleSessionSummary } from '../summaries/session-summary-job.ts';
import { recentTurnTexts } from './recent-turn-texts.ts';
import { type MemoryStepReport, type MemoryStepResult, runMemoryStep } from './run-memory-step.ts';

/** Memory in the loop, as `createNexusCore` takes it. Only `port` is required. */
export interface TurnMemoryOptions {
  port: MemoryPort;
  /** Where `memory.extract` and `memory.summarize` jobs go; without it nothing is learned after a turn. */
  jobQueue?: JobQueue;
  /** Deadline of the memory step; what answered by then is used. Default 2000 ms. */
  budgetMs?: number;
  /** A slower memory step sends a `status` event. Default 300 ms. */
  statusAfterMs?: number;
  statusText?: string;
  /** Tokens of memory context in the prompt. Default 2000. */
  tokenBudget?: number;
  /** Memories considered for the context. Default 20. */
  limit?: number;
  /**
   * Extra tokens for the person's standing facts (preferences first), added to every turn whatever
   * the message says, so a returning person is recognised from the first reply. Default 400.
   */
  profileTokenBudget?: number;
  /** Standing facts at most; 0 turns them off. Default 10. */
  profileLimit?: number;
  /** A direct conversation quiet for this long is summarised; 0 turns summaries off. Default 30 min. */
  summaryIdleMs?: number;
  /**
   * A person who writes in a direct chat after this long away from every channel is greeted as
   * returning, once, when they have standing facts: the prompt gets `welcomeBackInstruction` next
   * to them. 0 turns it off. Default 72 h.
   */
  welcomeBackAfterMs?: number;
  /** `remember`, `recall`, `forget` for the agent. Default true. */
  tools?: boolean;
  /** A `memory.extract` job after each answered turn. Default true. */
  extraction?: boolean;
  /** Called once per turn with what the memory step did (metrics). */
  onMemoryStep?: (report: MemoryStepReport & { channel: string }) => void;
  /**
   * Groups whose only human member the owner named: that person's own memory is used when they
   * speak there. Every other group conversation uses the group's memory only. Default none.
   */
  groupPersonalMemory?: GroupPersonalMemoryEntry[];
}

export type TurnMemory = Required<Omit<TurnMemoryOptions, 'jobQueue' | 'onMemoryStep'>> &
  Pick<TurnMemoryOptions, 'jobQueue' | 'onMemoryStep'>;

export const DEFAULT_MEMORY_STATUS_TEXT = 'Restoring your preferences…';

/** Put at the end of the memory block on a returning person's first message after a long gap. */
export function welcomeBackInstruction(gapMs: number): string {
  const days = Math.max(1, Math.round(gapMs / 86_400_000));
  return `## Returning person\nThis person is writing again after ${days === 1 ? 'a day' : `${days} days`} away. Welcome them back briefly as someone you know, and show that you remember them by using what you know about them (above) where it fits. Do not list everything you remember.`;
}

export function resolveTurnMemory(options: TurnMemoryOptions): TurnMemory {
  return {
    budgetMs: 2000,
    statusAfterMs: 300,
    statusText: DEFAULT_MEMORY_STATUS_TEXT,
    tokenBudget: 2000,
    limit: 20,
    profileTokenBudget: 400,
    profileLimit: 10,
    summaryIdleMs: 30 * 60_000,
    welcomeBackAfterMs: 72 * 3_600_000,
    tools: true,
    extraction: true,
    groupPersonalMemory: [],
    ...definedOnly(options),
  } as TurnMemory;
}

function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, item]) => item !== undefined)) as Partial<T>;
}

/**
 * The memory block of one turn: what matches the message, the standing facts, and, when a direct
 * conversation resumes after a quiet period, its stored summary. In a group the block is the
 * group's own memory under a note saying so, never a person's (see `memorySubjectOf`).
 */
export async function loadTurnMemory(options: {
  memory: TurnMemory;
  intent: Intent;
  conversationKey: string;
  turns: StoredTurn[];
  /** When the person was last active on any channel (`SessionStore.markActive`); else the conversation's last turn counts. */
  personActivity?: { lastActiveAt: number | undefined };
  onSlow: () => void;
  tokenCounter: TokenCounter;
  now: () => number;
  logger: Logger;
  abortSignal: AbortSignal;
}): Promise<MemoryStepResult> {
  const { memory, intent } = options;
  const subject = memorySubjectOf(intent, memory.groupPersonalMemory);
  if (subject.kind === 'none') {
    options.logger.warn({ reason: subject.reason }, 'no memory for this turn');
    return { block: '', report: NO_MEMORY_REPORT };
  }
  const lastTurnAt = options.turns.at(-1)?.createdAt;
  const gapMs = lastTurnAt === undefined ? 0 : options.now() - lastTurnAt;
  const resumed =
    intent.conversation.kind === 'direct' &&
    lastTurnAt !== undefined &&
    memory.summaryIdleMs > 0 &&
    gapMs >= memory.summaryIdleMs;
  // A return is the person's, not one conversation's: away from every channel for the gap (a
  // first message after /new or on a newly linked channel counts). Only someone Nexus has talked
  // with before, and greeted only when it knows something about them (runMemoryStep checks).
  const lastSeenAt = options.personActivity ? options.personActivity.lastActiveAt : lastTurnAt;
  const awayMs = lastSeenAt === undefined ? 0 : options.now() - lastSeenAt;
  const returning =
    subject.kind === 'person' &&
    intent.conversation.kind === 'direct' &&
    lastSeenAt !== undefined &&
    memory.welcomeBackAfterMs > 0 &&
    awayMs >= memory.welcomeBackAfterMs;
  const result = await runMemoryStep({
    memory: memory.port,
    userId: subject.userId,
    query: intent.text,
    recentTurns: recentTurnTexts(options.turns),
    sessionId: options.conversationKey,
    budgetMs: memory.budgetMs,
    statusAfterMs: memory.statusAfterMs,
    onSlow: options.onSlow,
    tokenBudget: memory.tokenBudget,
    limit: memory.limit,
    includeProfile: memory.profileLimit > 0 && memory.profileTokenBudget > 0,
    includeSessionSummary: resumed,
    // Read only with the summary: a set of every history turn's id is not built for each turn.
    ...(resumed ? { currentIntentIds: new Set(options.turns.map((turn) => turn.intentId)) } : {}),
    ...(returning ? { extraInstruction: welcomeBackInstruction(awayMs) } : {}),
    profileTokenBudget: memory.profileTokenBudget,
    profileLimit: memory.profileLimit,
    tokenCounter: options.tokenCounter,
    now: options.now,
    logger: options.logger,
    abortSignal: options.abortSignal,
  });
  try {
    memory.onMemoryStep?.({ ...result.report, channel: intent.channel });
  } catch (error) {
    options.logger.warn({ err: error }, 'onMemoryStep threw');
  }
  if (subject.kind !== 'group') return result;
  return { ...result, block: result.block ? `${GROUP_MEMORY_NOTE}\n\n${result.block}` : GROUP_MEMORY_NOTE };
}

/** The longest the memory jobs of a turn may take to be enqueued. */
const ENQUEUE_TIMEOUT_MS = 5_000;

const NO_MEMORY_REPORT: MemoryStepReport = {
  outcome: 'ok',
  durationMs: 0,
  scopesFound: [],
  scopesMissing: [],
  scopesTimedOut: [],
  memoriesUsed: 0,
  memoryIds: [],
  tokensUsed: 0,
  slow: false,
};

/**
 * After an answered turn: the extraction job, and the summary job for when the conversation goes
 * quiet. Never throws: a queue that is down costs the learning of one turn, logged, not the reply.
 * An edit or delete passes `revision`: its job reconsiders what was learned from that message.
 */
export async function enqueueAfterTurn(options: {
  memory: TurnMemory;
  intent: Intent;
  conversationKey: string;
  replyText: string;
  logger: Logger;
  revision?: MemoryExtractionPayload['revision'];
  /** False when the revision added no turn, so there is nothing new to summarise. Default true. */
  summary?: boolean;
}): Promise<void> {
  const { memory, intent } = options;
  const queue = memory.jobQueue;
  if (!queue) return;
  const subject = memorySubjectOf(intent, memory.groupPersonalMemory);
  if (subject.kind === 'none') return;
  // A timer cleared once the jobs are in, not AbortSignal.timeout: that one's timer stays queued
  // for the full 5 s after every turn, and the signal costs ~1 µs more to make.
  const deadline = new AbortController();
  const abortSignal = deadline.signal;
  const timer = setTimeout(
    () => deadline.abort(new DOMException('Enqueueing the memory jobs took over 5 s.', 'TimeoutError')),
    ENQUEUE_TIMEOUT_MS,
  );
  // As AbortSignal.timeout: the deadline alone does not keep the process running.
  timer.unref();
  const jobs: Promise<unknown>[] = [];
  if (memory.extraction) {
    jobs.push(
      enqueueMemoryExtraction({
        queue,
        abortSignal,
        payload: {
          userId: intent.userId,
          sessionId: options.conversationKey,
          channel: intent.channel,
          conversationId: intent.conversation.id,
          conversationKind: intent.conversation.kind,
          // Only set where the owner allowed it; a job without it extracts a group turn into the group.
          ...(subject.kind === 'person' && intent.conversation.kind !== 'direct'
            ? { personalInGroup: true }
            : {}),
          intentId: intent.id,
          userText: intent.text,
          replyText: options.replyText,
          occurredAt: intent.receivedAt,
          ...(options.revision ? { revision: options.revision } : {}),
        },
      }),
    );
  }
  // Group chats are not summarised: a summary would carry other people's words into one person's memory.
  if (memory.summaryIdleMs > 0 && intent.conversation.kind === 'direct' && options.summary !== false) {
    jobs.push(
      scheduleSessionSummary({
        queue,
        abortSignal,
        idleMs: memory.summaryIdleMs,
        turnAt: Date.parse(intent.receivedAt),
        payload: {
          userId: intent.userId,
          sessionId: options.conversationKey,
          // The id the stored turn has: a re-answered edit is stored under the edited message's id.
          lastIntentId: options.revision?.messageIntentId ?? intent.id,
        },
      }),
    );
  }
  const outcomes = await Promise.allSettled(jobs);
  clearTimeout(timer);
  for (const outcome of outcomes) {
    if (outcome.status === 'rejected')
      options.logger.error({ err: outcome.reason }, 'could not enqueue memory jobs for this turn');
  }
}
