import { sharedTokenCounter, type TokenCounter } from '@nexus/limits-kit';
import { type ErrorCode, errorCodeSchema, NexusError } from '@nexus/protocol';
import type { Memory, MemoryStats } from '../model/memory.ts';
import type {
  AddMemoryResult,
  MemoryApi,
  MemoryContext,
  MemoryHealth,
  MemorySearchResult,
} from '../model/memory-api.ts';
import { MemoryInputError, MemoryStoreError } from '../model/memory-errors.ts';
import { fillInStandingFacts } from './fill-in-standing-facts.ts';

export interface MemoryClientOptions {
  /** e.g. `http://memory.internal:7400` */
  baseUrl: string;
  apiKey: string;
  fetch?: typeof globalThis.fetch;
  /**
   * Counts the standing fact lines the client adds when an older memory service ignored the
   * `standing` request (see `fillInStandingFacts`). Default: the process's shared o200k counter.
   */
  tokenCounter?: TokenCounter;
  now?: () => number;
}

/**
 * `MemoryApi` over the memory HTTP API: the same methods, options and results as the
 * in-process `MemoryService`, and the same error classes (400 → `MemoryInputError` naming the
 * field; unreachable or 5xx → retryable `MemoryStoreError`).
 */
export function createMemoryClient(options: MemoryClientOptions): MemoryApi {
  const fetchImplementation = options.fetch ?? globalThis.fetch;
  const base = options.baseUrl.replace(/\/+$/u, '');

  async function call<T>(
    method: 'GET' | 'POST' | 'PUT' | 'DELETE',
    path: string,
    input: Record<string, unknown> = {},
    notFoundAsUndefined = false,
  ): Promise<T> {
    const { abortSignal, ...rest } = input as { abortSignal?: AbortSignal } & Record<string, unknown>;
    const url = new URL(base + path);
    const hasBody = method === 'POST' || method === 'PUT';
    if (!hasBody) {
      for (const [key, value] of Object.entries(rest)) {
        if (value !== undefined) url.searchParams.set(key, String(value));
      }
    }
    const headers: Record<string, string> = { 'x-api-key': options.apiKey };
    if (hasBody) headers['content-type'] = 'application/json';
    let response: Response;
    try {
      response = await fetchImplementation(url, {
        method,
        headers,
        body: hasBody ? JSON.stringify(rest) : null,
        signal: abortSignal ?? null,
      });
    } catch (error) {
      if (abortSignal?.aborted) throw error;
      throw new MemoryStoreError({
        message: `Memory service ${base} unreachable.`,
        retryable: true,
        cause: error,
      });
    }
    const text = await response.text();
    const body = parseJson(text);
    if (response.ok) return body as T;
    if (response.status === 404 && notFoundAsUndefined) return undefined as T;
    const error = (body as { error?: { code?: string; message?: string; field?: string } } | undefined)
      ?.error;
    const message = error?.message ?? `Memory service answered ${response.status}.`;
    if (response.status === 400) throw new MemoryInputError({ field: error?.field ?? 'body', message });
    const known = errorCodeSchema.safeParse(error?.code);
    const code: ErrorCode = known.success
      ? known.data
      : response.status === 413
        ? 'payload_too_large'
        : 'internal';
    const retryable = response.status === 429 || response.status >= 500;
    if (response.status === 503 || response.status >= 500) throw new MemoryStoreError({ message, retryable });
    throw new NexusError({ code, message, retryable });
  }

  const encode = encodeURIComponent;
  return {
    add: (input) => call<AddMemoryResult>('POST', '/add', { ...input }),
    search: async (input) =>
      (await call<{ results: MemorySearchResult[] }>('POST', '/search', { ...input })).results,
    context: async (input) => {
      const answer = await call<MemoryContext>('POST', '/context', { ...input });
      if (!input.standing || answer.standing) return answer;
      // An older memory service: it ignored `standing`, so the client reads the standing facts itself.
      const started = performance.now();
      let memories: Memory[];
      try {
        ({ memories } = await call<{ memories: Memory[] }>('GET', '/standing-facts', {
          userId: input.userId,
          limit: Math.min(200, input.standing.limit + (input.limit ?? 20)),
          abortSignal: input.abortSignal,
        }));
      } catch (error) {
        if (input.abortSignal?.aborted) throw error;
        // The block the service gave still counts; only the standing facts are missing.
        const durationMs = performance.now() - started;
        return { ...answer, standing: { status: 'error', candidates: 0, durationMs } };
      }
      return fillInStandingFacts(answer, memories, {
        standing: input.standing,
        counter: options.tokenCounter ?? sharedTokenCounter(),
        now: (options.now ?? Date.now)(),
        durationMs: performance.now() - started,
      });
    },
    list: async (input) => (await call<{ memories: Memory[] }>('GET', '/memories', { ...input })).memories,
    standingFacts: async (input) =>
      (await call<{ memories: Memory[] }>('GET', '/standing-facts', { ...input })).memories,
    get: ({ id, ...input }) => call<Memory | undefined>('GET', `/memories/${encode(id)}`, input, true),
    update: async ({ id, ...input }) =>
      (await call<{ memory: Memory } | undefined>('PUT', `/memories/${encode(id)}`, { ...input }, true))
        ?.memory,
    delete: ({ id, ...input }) => call<{ deleted: boolean }>('DELETE', `/memories/${encode(id)}`, input),
    reset: (input) => call<{ deleted: number }>('POST', '/reset', { ...input }),
    sessionMemories: async ({ sessionId, ...input }) =>
      (await call<{ memories: Memory[] }>('GET', `/sessions/${encode(sessionId)}/memories`, input)).memories,
    stats: (input = {}) => call<MemoryStats>('GET', '/stats', { ...input }),
    health: (input = {}) => call<MemoryHealth>('GET', '/health', { ...input }),
  };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
