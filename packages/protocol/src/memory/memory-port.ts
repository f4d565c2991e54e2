import type {
  MemoryCategory,
  MemoryContextScope,
  MemoryMetadataValues,
  MemoryScope,
  MemorySource,
} from './memory-vocabulary.ts';

/**
 * The part of a memory service core uses. The in-process `MemoryService` and the HTTP
 * `createMemoryClient` (both in `@nexus/memory`) satisfy it structurally and the gateway injects
 * one of them. Every call names the person (`userId`); core only ever passes the person who is
 * speaking. Memory returns finished results: `context` is the prompt block, ready to use.
 */
export interface MemoryPort {
  context(options: MemoryContextRequest): Promise<MemoryContextResult>;
  search(options: MemorySearchRequest): Promise<MemorySearchHit[]>;
  add(options: MemoryAddRequest): Promise<MemoryAddResult>;
  delete(options: { userId: string; id: string; abortSignal?: AbortSignal }): Promise<{ deleted: boolean }>;
  list(options: MemoryListRequest): Promise<MemoryRecord[]>;
}

export interface MemoryContextRequest {
  userId: string;
  query: string;
  /** The conversation's latest turns before the message, oldest first (a follow-up's subject). */
  recentTurns?: string[];
  tokenBudget?: number;
  limit?: number;
  sessionId?: string;
  /**
   * Also the person's standing facts (their best user-scope memories whatever the message says),
   * after the memories the query found, within their own `tokenBudget`: memory merges, orders and
   * formats them into the same block.
   */
  standing?: MemoryStandingRequest;
  abortSignal?: AbortSignal;
}

export interface MemoryStandingRequest {
  /** At most this many standing facts besides the ones the query already found. */
  limit: number;
  /** Tokens the standing fact lines may take, on top of the context's own `tokenBudget`. */
  tokenBudget: number;
}

export interface MemoryScopeStatus {
  status: 'ok' | 'timeout' | 'error' | 'skipped';
  candidates: number;
  durationMs: number;
}

export interface MemoryContextResult {
  /**
   * The finished Known Facts block (the person's facts and standing facts, then the global ones
   * under their own heading), or '' when nothing matched. It goes into the prompt as it is.
   */
  context: string;
  memoriesUsed: number;
  memoryIds: string[];
  tokensUsed: number;
  truncated: boolean;
  scopes: Record<MemoryContextScope, MemoryScopeStatus>;
  /**
   * How the standing facts were loaded, when the request asked for them. A memory service older
   * than the `standing` request leaves it out; the HTTP client then fills the block in itself.
   */
  standing?: MemoryScopeStatus;
  durationMs: number;
}

export interface MemorySearchRequest {
  userId: string;
  query: string;
  limit?: number;
  scopes?: MemoryScope[];
  sessionId?: string;
  abortSignal?: AbortSignal;
}

export interface MemorySearchHit {
  id: string;
  content: string;
  score: number;
  category: MemoryCategory;
  source: MemorySource;
  scope: MemoryScope;
  createdAt: number;
  updatedAt: number;
}

export interface MemoryAddRequest {
  userId?: string;
  content: string;
  scope?: MemoryScope;
  category?: MemoryCategory;
  source?: MemorySource;
  sessionId?: string;
  metadata?: MemoryMetadataValues;
  abortSignal?: AbortSignal;
}

export interface MemoryAddResult {
  action: 'inserted' | 'updated' | 'unchanged';
  deduplicated: boolean;
  memory: MemoryRecord;
}

export interface MemoryRecord {
  id: string;
  userId: string;
  scope: MemoryScope;
  sessionId?: string | undefined;
  content: string;
  category: MemoryCategory;
  source: MemorySource;
  createdAt: number;
  updatedAt: number;
  metadata: MemoryMetadataValues;
}

export interface MemoryListRequest {
  userId: string;
  scope?: MemoryScope;
  sessionId?: string;
  limit?: number;
  offset?: number;
  abortSignal?: AbortSignal;
}
