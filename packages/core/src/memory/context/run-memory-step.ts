import { type Settled, settleWithin, type TokenCounter } from '@nexus/limits-kit';
import type { Logger, MemoryPort } from '@nexus/protocol';
import { failureMessage } from '../extraction/failure-message.ts';
import { isSummary, SESSION_SUMMARY_HEADER, summarySessionId } from '../summaries/session-summary-job.ts';

/** What one memory step did, for logs and metrics. */
export interface MemoryStepReport {
  /** `partial`: some parts answered in time, others timed out or failed. */
  outcome: 'ok' | 'partial' | 'timeout' | 'error';
  durationMs: number;
  /** Parts that answered with at least one memory: context scopes, `profile`, `summary`. */
  scopesFound: string[];
  /** Parts that did not answer in time or failed. */
  scopesMissing: string[];
  /** Of those, the ones that did not answer in time (the rest failed). */
  scopesTimedOut: string[];
  memoriesUsed: number;
  /** Ids of the memories that went into the prompt (for tracing which memory fed which reply). */
  memoryIds: string[];
  tokensUsed: number;
  /** True when the status event was sent because the step was slow. */
  slow: boolean;
}

export interface MemoryStepResult {
  /** Goes into the system prompt; '' when nothing is known. */
  block: string;
  report: MemoryStepReport;
}

export interface MemoryStepOptions {
  memory: MemoryPort;
  userId: string;
  query: string;
  /** The conversation's latest turns before the message, oldest first; words of the query too. */
  recentTurns?: string[];
  sessionId: string;
  /** The whole step's deadline; whatever answered by then is used, the rest is abandoned. */
  budgetMs: number;
  /** When the step takes longer than `statusAfterMs`, `onSlow` is called once (the turn sends a status). */
  statusAfterMs?: number;
  onSlow?: () => void;
  tokenBudget: number;
  limit: number;
  /**
   * Also the person's standing facts (preferences first), whatever the message says: memory adds
   * up to `profileLimit` of them within `profileTokenBudget` to the block it returns.
   */
  includeProfile: boolean;
  /** Resumed after a gap: load the stored summary of this conversation. */
  includeSessionSummary: boolean;
  /**
   * The turns of the conversation's current generation. A summary counts only if the last turn it
   * summarised is one of them, so after `/new` the earlier conversation's summary stays out.
   */
  currentIntentIds?: ReadonlySet<string>;
  /** Appended to the block when the person has standing facts (the welcome-back instruction); '' or omitted for none. */
  extraInstruction?: string;
  profileTokenBudget: number;
  profileLimit: number;
  tokenCounter: TokenCounter;
  now: () => number;
  logger: Logger;
  abortSignal?: AbortSignal;
}

/**
 * The newest of the conversation's summaries; with `current`, only one whose last summarised turn
 * is among them (after `/new`, the earlier conversation's summary stays out).
 */
function latestSummary(
  memories: Awaited<ReturnType<MemoryPort['list']>>,
  current: MemoryStepOptions['currentIntentIds'],
) {
  return memories
    .filter(isSummary)
    .filter((memory) => !current || current.has(String(memory.metadata.throughIntentId)))
    .sort((left, right) => right.updatedAt - left.updatedAt)[0];
}

/** Which of the context's scopes found memories, which are missing and which of those timed out. */
function scopesOf(context: Settled<Awaited<ReturnType<MemoryPort['context']>>>, includeProfile: boolean) {
  const found: string[] = [];
  const missing: string[] = [];
  const timedOut: string[] = [];
  if (context.status === 'ok') {
    const { scopes, standing } = context.value;
    for (const scope in scopes) {
      const report = scopes[scope as keyof typeof scopes];
      if (report.status === 'ok' && report.candidates > 0) found.push(scope);
      else if (report.status === 'timeout' || report.status === 'error') missing.push(scope);
      if (report.status === 'timeout') timedOut.push(scope);
    }
    if (standing?.status === 'ok' && standing.candidates > 0) found.push('profile');
    else if (standing?.status === 'timeout' || standing?.status === 'error') missing.push('profile');
    if (standing?.status === 'timeout') timedOut.push('profile');
  } else {
    // Standing facts come with the context, so they are missing with it.
    const parts = includeProfile ? ['context', 'profile'] : ['context'];
    missing.push(...parts);
    if (context.status === 'timeout') timedOut.push(...parts);
  }
  return { found, missing, timedOut };
}

/**
 * The memory step of a turn (DESIGN §2). Context, standing facts and the session summary load in
 * parallel under one deadline; a slow or dead memory service costs at most `budgetMs` and never
 * fails the turn. Never throws.
 */
export async function runMemoryStep(options: MemoryStepOptions): Promise<MemoryStepResult> {
  const startedAt = options.now();
  const controller = new AbortController();
  const abortFromCaller = () => controller.abort(options.abortSignal?.reason);
  if (options.abortSignal?.aborted) abortFromCaller();
  options.abortSignal?.addEventListener('abort', abortFromCaller, { once: true });
  let slow = false;
  const { onSlow, statusAfterMs } = options;
  const slowTimer =
    onSlow && statusAfterMs !== undefined && statusAfterMs < options.budgetMs
      ? setTimeout(() => {
          slow = true;
          onSlow();
        }, statusAfterMs)
      : undefined;
  const signal = controller.signal;
  const [context, summary] = await settleWithin(
    [
      () =>
        options.memory.context({
          userId: options.userId,
          query: options.query,
          ...(options.recentTurns?.length ? { recentTurns: options.recentTurns } : {}),
          tokenBudget: options.tokenBudget,
          limit: options.limit,
          sessionId: options.sessionId,
          ...(options.includeProfile
            ? { standing: { limit: options.profileLimit, tokenBudget: options.profileTokenBudget } }
            : {}),
          abortSignal: signal,
        }),
      options.includeSessionSummary
        ? () =>
            options.memory.list({
              userId: options.userId,
              scope: 'session',
              sessionId: summarySessionId(options.sessionId),
              limit: 5,
              abortSignal: signal,
            })
        : undefined,
    ],
    options.budgetMs,
  );
  clearTimeout(slowTimer);
  // Abandon whatever outlived the deadline; the memory client stops its request. Parts that
  // settled need no abort (building the DOMException on every turn showed up in the profile).
  if (context.status === 'timeout' || summary?.status === 'timeout') {
    controller.abort(new DOMException('The memory step is over.', 'AbortError'));
  }
  options.abortSignal?.removeEventListener('abort', abortFromCaller);

  const contextValue = context.status === 'ok' ? context.value : undefined;
  const { found, missing, timedOut } = scopesOf(context, options.includeProfile);
  const now = options.now();
  const sections: string[] = [];
  // Memory's finished block (the person's facts, standing facts, then the global section).
  const facts = contextValue?.context.trim() ?? '';
  if (facts) sections.push(facts);
  if (summary) {
    if (summary.status === 'ok') {
      const latest = latestSummary(summary.value, options.currentIntentIds);
      if (latest) {
        found.push('summary');
        sections.push(`${SESSION_SUMMARY_HEADER}\n${latest.content.trim()}`);
      }
    } else {
      missing.push('summary');
      if (summary.status === 'timeout') timedOut.push('summary');
    }
  }
  // The welcome back is for someone Nexus knows: only with standing facts of theirs.
  const knownPerson = contextValue?.standing?.status === 'ok' && contextValue.standing.candidates > 0;
  if (options.extraInstruction && knownPerson) sections.push(options.extraInstruction);
  const block = sections.join('\n\n');
  const partCount = summary ? 2 : 1;
  const answered = (context.status === 'ok' ? 1 : 0) + (summary?.status === 'ok' ? 1 : 0);
  const outcome: MemoryStepReport['outcome'] =
    answered === partCount && missing.length === 0
      ? 'ok'
      : answered > 0
        ? 'partial'
        : context.status === 'timeout' || summary?.status === 'timeout'
          ? 'timeout'
          : 'error';
  const report: MemoryStepReport = {
    outcome,
    durationMs: now - startedAt,
    scopesFound: found,
    scopesMissing: missing,
    scopesTimedOut: timedOut,
    memoriesUsed: contextValue?.memoriesUsed ?? 0,
    memoryIds: contextValue?.memoryIds ?? [],
    tokensUsed: block ? options.tokenCounter.count(block) : 0,
    slow,
  };
  const errors: string[] = [];
  if (context.status === 'error') errors.push(failureMessage(context.error));
  if (summary?.status === 'error') errors.push(failureMessage(summary.error));
  const level = outcome === 'ok' ? 'info' : 'warn';
  // Written once this turn of the event loop is over: the line (a serialised report and a write
  // to standard output) then costs the model request's wait, not a warm turn's path to it.
  setImmediate(() =>
    options.logger[level](
      { memory: report, ...(errors.length > 0 ? { errors } : {}), budgetMs: options.budgetMs },
      outcome === 'ok'
        ? 'memory context loaded'
        : `memory context ${outcome}: replying with what answered in time`,
    ),
  );
  return { block, report };
}
