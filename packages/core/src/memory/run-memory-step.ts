import type { TokenCounter } from '@nexus/limits-kit';
import type { Logger } from '@nexus/protocol';
import { failureMessage } from '../extraction/failure-message.ts';
import {
  factLine,
  GLOBAL_FACTS_HEADER,
  KNOWN_FACTS_HEADER,
  SESSION_SUMMARY_HEADER,
  standingOrder,
} from './fact-lines.ts';
import type { MemoryContextResult, MemoryPort, MemoryRecord } from './memory-port.ts';

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
  /** Also load the person's standing facts (preferences first), whatever the message says. */
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

type PartOutcome<T> = { status: 'ok'; value: T } | { status: 'timeout' } | { status: 'error'; error: string };

const TIMED_OUT = Symbol('memory step timed out');

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
  let deadlineTimer: NodeJS.Timeout | undefined;
  const deadline = new Promise<typeof TIMED_OUT>((resolve) => {
    deadlineTimer = setTimeout(() => resolve(TIMED_OUT), options.budgetMs);
  });
  const signal = controller.signal;

  const within = async <T>(work: () => Promise<T>): Promise<PartOutcome<T>> => {
    try {
      const value = await Promise.race([work(), deadline]);
      return value === TIMED_OUT ? { status: 'timeout' } : { status: 'ok', value: value as T };
    } catch (error) {
      return { status: 'error', error: failureMessage(error) };
    }
  };

  const [context, profile, summary] = await Promise.all([
    within(() =>
      options.memory.context({
        userId: options.userId,
        query: options.query,
        ...(options.recentTurns?.length ? { recentTurns: options.recentTurns } : {}),
        tokenBudget: options.tokenBudget,
        limit: options.limit,
        sessionId: options.sessionId,
        abortSignal: signal,
      }),
    ),
    options.includeProfile
      ? within(() =>
          options.memory.standingFacts({
            userId: options.userId,
            // The context's memories are left out of the standing facts afterwards, so as many more
            // are asked for as the context can hold: the pick stays the best `profileLimit` of the rest.
            limit: options.profileLimit + options.limit,
            abortSignal: signal,
          }),
        )
      : undefined,
    options.includeSessionSummary
      ? within(() =>
          options.memory.list({
            userId: options.userId,
            scope: 'session',
            sessionId: summarySessionId(options.sessionId),
            limit: 5,
            abortSignal: signal,
          }),
        )
      : undefined,
  ]);
  clearTimeout(slowTimer);
  clearTimeout(deadlineTimer);
  // Abandon whatever outlived the deadline; the memory client stops its request. Parts that
  // settled need no abort (building the DOMException on every turn showed up in the profile).
  if ([context, profile, summary].some((part) => part?.status === 'timeout')) {
    controller.abort(new DOMException('The memory step is over.', 'AbortError'));
  }
  options.abortSignal?.removeEventListener('abort', abortFromCaller);

  const found: string[] = [];
  const missing: string[] = [];
  const timedOut: string[] = [];
  const contextValue = context.status === 'ok' ? context.value : undefined;
  if (contextValue) {
    for (const [scope, report] of Object.entries(contextValue.scopes)) {
      if (report.status === 'ok' && report.candidates > 0) found.push(scope);
      else if (report.status === 'timeout' || report.status === 'error') missing.push(scope);
      if (report.status === 'timeout') timedOut.push(scope);
    }
  } else {
    missing.push('context');
    if (context.status === 'timeout') timedOut.push('context');
  }
  const now = options.now();
  const sections: string[] = [];
  const factsBlock = knownFacts(contextValue, profile, options, now);
  if (profile?.status === 'ok' && profile.value.length > 0) found.push('profile');
  else if (profile && profile.status !== 'ok') missing.push('profile');
  if (profile?.status === 'timeout') timedOut.push('profile');
  if (factsBlock.text) sections.push(factsBlock.text);
  if (summary) {
    if (summary.status === 'ok') {
      const current = options.currentIntentIds;
      const latest = summary.value
        .filter(isSummary)
        .filter((memory) => !current || current.has(String(memory.metadata.throughIntentId)))
        .sort((left, right) => right.updatedAt - left.updatedAt)[0];
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
  if (options.extraInstruction && profile?.status === 'ok' && profile.value.length > 0)
    sections.push(options.extraInstruction);
  const block = sections.join('\n\n');
  const parts = [context, profile, summary].filter((part) => part !== undefined);
  const answered = parts.filter((part) => part.status === 'ok').length;
  const outcome: MemoryStepReport['outcome'] =
    answered === parts.length && missing.length === 0
      ? 'ok'
      : answered > 0
        ? 'partial'
        : parts.some((part) => part.status === 'timeout')
          ? 'timeout'
          : 'error';
  const report: MemoryStepReport = {
    outcome,
    durationMs: now - startedAt,
    scopesFound: found,
    scopesMissing: missing,
    scopesTimedOut: timedOut,
    memoriesUsed: factsBlock.memoriesUsed,
    memoryIds: factsBlock.memoryIds,
    tokensUsed: block ? options.tokenCounter.count(block) : 0,
    slow,
  };
  const errors = parts.flatMap((part) => (part.status === 'error' ? [part.error] : []));
  const level = outcome === 'ok' ? 'info' : 'warn';
  options.logger[level](
    { memory: report, ...(errors.length > 0 ? { errors } : {}), budgetMs: options.budgetMs },
    outcome === 'ok'
      ? 'memory context loaded'
      : `memory context ${outcome}: replying with what answered in time`,
  );
  return { block, report };
}

/** Memory's ranked block, with standing facts it did not already hold appended within their own budget. */
function knownFacts(
  context: MemoryContextResult | undefined,
  profile: PartOutcome<MemoryRecord[]> | undefined,
  options: MemoryStepOptions,
  now: number,
): { text: string; memoriesUsed: number; memoryIds: string[] } {
  let text = context?.context.trim() ?? '';
  let memoriesUsed = context?.memoriesUsed ?? 0;
  const memoryIds = [...(context?.memoryIds ?? [])];
  if (profile?.status !== 'ok') return { text, memoriesUsed, memoryIds };
  const used = new Set(context?.memoryIds ?? []);
  const candidates = profile.value
    .filter((memory) => !used.has(memory.id) && memory.scope === 'user')
    .sort(standingOrder(now))
    .slice(0, options.profileLimit);
  let tokens = 0;
  const lines: string[] = [];
  for (const memory of candidates) {
    const line = factLine(memory, now);
    const lineTokens = options.tokenCounter.count(`${line}\n`);
    if (tokens + lineTokens > options.profileTokenBudget) continue;
    tokens += lineTokens;
    lines.push(line);
    memoryIds.push(memory.id);
  }
  if (lines.length === 0) return { text, memoriesUsed, memoryIds };
  // Standing facts are the person's: they go with the person's facts, ahead of the global section.
  const globalAt = text.indexOf(GLOBAL_FACTS_HEADER);
  const personal = (globalAt === -1 ? text : text.slice(0, globalAt)).trim();
  const global = globalAt === -1 ? '' : `\n${text.slice(globalAt)}`;
  text = personal
    ? `${personal}\n${lines.join('\n')}${global}`
    : `${KNOWN_FACTS_HEADER}\n${lines.join('\n')}${global}`;
  memoriesUsed += lines.length;
  return { text, memoriesUsed, memoryIds };
}

/**
 * Summaries are linked to their own session id, not the conversation's, so the context's session
 * scope (which searches every memory linked to the conversation) never offers one as a fact; only the
 * resumed-conversation path reads them, and only for the current generation (`currentIntentIds`).
 */
export function summarySessionId(conversationKey: string): string {
  return `${conversationKey}#summary`;
}

/** Session summaries are session-scope memories marked by the summary worker. */
export function isSummary(memory: MemoryRecord): boolean {
  return memory.metadata.kind === SESSION_SUMMARY_KIND;
}

export const SESSION_SUMMARY_KIND = 'session-summary';
