import type { TokenCounter } from '@nexus/limits-kit';
import type { Logger } from '@nexus/protocol';
import { packContext, withStandingFacts } from '../context/context-block.ts';
import { type ContextScopeRunner, runContextScopes } from '../context/context-scopes.ts';
import { alwaysPresentGlobal } from '../context/global-context.ts';
import { GLOBAL_USER_ID, type Memory } from '../model/memory.ts';
import type {
  ContextScopeReport,
  MemoryContext,
  MemoryContextOptions,
  MemorySearchResult,
} from '../model/memory-api.ts';
import type { MemoryStore } from '../model/memory-store.ts';
import { conversationQuery } from '../ranking/conversation-query.ts';
import { compareRanked, type ScoringOptions } from '../ranking/memory-scoring.ts';
import { compareStanding } from '../ranking/standing-order.ts';

type Ranked = MemorySearchResult & { memory: Memory };

/** What `buildMemoryContext` uses of the service. */
export interface MemoryContextParts {
  store: MemoryStore;
  counter: TokenCounter;
  now: () => number;
  scoring: ScoringOptions;
  scopeTimeoutMs: number;
  logger: Logger;
  embed: (text: string, abortSignal: AbortSignal | undefined) => Promise<Float32Array | undefined>;
  /** Whether `embed` sends a request (an embedder is configured), so there is a wait to fill. */
  embedsQueries: boolean;
  /** Records when memories were last used, after the block is handed back (see MemoryService). */
  recordUsedLater: (ids: string[], at: number) => void;
  ranked: (request: {
    userId: string;
    query: string;
    contextText: string;
    limit: number;
    embedding: Float32Array | undefined;
    scopes?: ReadonlyArray<Memory['scope']> | undefined;
    sessionId?: string | undefined;
    abortSignal?: AbortSignal | undefined;
  }) => Promise<Ranked[]>;
}

/**
 * `MemoryService.context`: the global, user and session scopes in parallel under their timeouts
 * (and the standing facts when asked), merged by best score, cut to `limit`, packed within the
 * budget, then the standing facts within theirs: the finished block core puts in the prompt.
 */
export async function buildMemoryContext(
  service: MemoryContextParts,
  input: MemoryContextOptions & { tokenBudget: number; globalTokenBudget: number; limit: number },
): Promise<MemoryContext> {
  const started = performance.now();
  const counter = service.counter;
  const query = conversationQuery(input.query, input.recentTurns);
  const embedding = service.embed(query.embeddingText, input.abortSignal).catch((error: unknown) => {
    service.logger.warn({ err: error }, 'memory: embedding the query failed, context is lexical only');
    return undefined;
  });
  // The standing facts do not depend on the query: they are read while its embedding request is
  // out rather than after it answered (a warm turn's wait on the embedder is most of the step).
  const standingLoad = loadStanding(service, input, service.embedsQueries ? afterRequestsLeft() : undefined);
  const base = {
    query: input.query,
    contextText: query.contextText,
    limit: input.limit,
    embedding: await embedding,
  };
  const always = new Map<string, Memory>();
  const globalScope = async (abortSignal: AbortSignal) => {
    const [matches, present] = await Promise.all([
      service.ranked({ ...base, userId: GLOBAL_USER_ID, abortSignal }),
      alwaysPresentGlobal({
        store: service.store,
        counter,
        now: service.now(),
        tokenBudget: Math.min(input.globalTokenBudget, input.tokenBudget),
        abortSignal,
      }),
    ]);
    for (const memory of present) always.set(memory.id, memory);
    return matches;
  };
  const runners: Record<'global' | 'user' | 'session', ContextScopeRunner<Ranked> | undefined> = {
    global: globalScope,
    user: (abortSignal) => service.ranked({ ...base, userId: input.userId, scopes: ['user'], abortSignal }),
    session: input.sessionId
      ? (abortSignal) =>
          service.ranked({ ...base, userId: input.userId, sessionId: input.sessionId, abortSignal })
      : undefined,
  };
  const standing = input.standing;
  const [{ results, scopes }, standingFacts] = await Promise.all([
    runContextScopes({
      runners,
      timeoutMs: service.scopeTimeoutMs,
      abortSignal: input.abortSignal,
      logger: service.logger,
    }),
    standingLoad,
  ]);
  const best = new Map<string, Ranked>();
  for (const hit of results) {
    const known = best.get(hit.id);
    if (!known || hit.score > known.score) best.set(hit.id, hit);
  }
  // A late or failed global scope contributes nothing, not even what it found after its deadline.
  if (scopes.global.status !== 'ok') always.clear();
  // The always-present global memories first (they fit their own small budget), then the best.
  const ranked = [...best.values()].filter((hit) => !always.has(hit.id)).sort(compareRanked);
  const candidates = [...always.values(), ...ranked.map((hit) => hit.memory)].slice(0, input.limit);
  const now = service.now();
  const contextPacked = packContext({
    candidates,
    tokenBudget: input.tokenBudget,
    counter,
    now,
  });
  const packed =
    standing && standingFacts
      ? withStandingFacts(contextPacked, {
          candidates: standingFacts.results,
          limit: standing.limit,
          tokenBudget: standing.tokenBudget,
          counter,
          now,
        })
      : contextPacked;
  const memoryIds = packed.used.map((memory) => memory.id);
  // Standing facts are read every turn whatever was asked, so only the block's own picks count as
  // used. Recorded once this turn of the event loop is over: the block is on its way into the
  // prompt (and the model request on the wire) by then; nothing in this reply depends on it.
  service.recordUsedLater(
    contextPacked.used.map((memory) => memory.id),
    now,
  );
  return {
    context: packed.context,
    memoriesUsed: packed.used.length,
    memoryIds,
    tokensUsed: packed.tokensUsed,
    tokenBudget: input.tokenBudget,
    truncated: packed.truncated,
    scopes,
    ...(standingFacts ? { standing: standingFacts.scopes.standing } : {}),
    durationMs: performance.now() - started,
    tokenizer: counter.name,
  };
}

/**
 * The person's standing facts under their own timeout (`input.standing`), started once `after`
 * settles (or at once without it).
 */
function loadStanding(
  service: MemoryContextParts,
  input: MemoryContextOptions & { limit: number },
  after: Promise<void> | undefined,
): Promise<{ results: Memory[]; scopes: Record<'standing', ContextScopeReport> }> | undefined {
  const standing = input.standing;
  if (!standing) return undefined;
  const load = () =>
    runContextScopes<Memory, 'standing'>({
      runners: {
        standing: (abortSignal) =>
          service.store.standing({
            userId: input.userId,
            // The block's own memories are left out afterwards, so as many more are read as it
            // can hold: the pick stays the best `standing.limit` of the rest.
            limit: standing.limit + input.limit,
            order: compareStanding(service.now(), service.scoring),
            abortSignal,
          }),
      },
      timeoutMs: service.scopeTimeoutMs,
      abortSignal: input.abortSignal,
      logger: service.logger,
    });
  return after ? after.then(load) : load();
}

/**
 * Resolves on the event loop's next check phase: by then a request started in this turn of the
 * loop has been written to its socket, so synchronous reads started after it overlap its wait
 * instead of delaying its departure.
 */
function afterRequestsLeft(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
