/**
 * The part of a memory service core uses. Core never imports `@nexus/memory`: the in-process
 * `MemoryService` and the HTTP `createMemoryClient` both satisfy this interface structurally,
 * and the gateway injects one of them. Every call names the person (`userId`); core only ever
 * passes the person who is speaking.
 */
export interface MemoryPort {
  context(options: MemoryContextRequest): Promise<MemoryContextResult>;
  search(options: MemorySearchRequest): Promise<MemorySearchHit[]>;
  add(options: MemoryAddRequest): Promise<MemoryAddResult>;
  delete(options: { userId: string; id: string; abortSignal?: AbortSignal }): Promise<{ deleted: boolean }>;
  list(options: MemoryListRequest): Promise<MemoryRecord[]>;
  /**
   * The person's `limit` best user-scope memories with no query (recency plus the category and
   * source prior; core's `standingOrder`), best first: an indexed read, never a listing.
   */
  standingFacts(options: {
    userId: string;
    limit: number;
    abortSignal?: AbortSignal;
  }): Promise<MemoryRecord[]>;
}

export type MemoryScopeName = 'user' | 'global' | 'session';
export type MemoryCategoryName = 'preference' | 'fact' | 'pattern' | 'event';
export type MemorySourceName = 'user_explicit' | 'inferred';
export type MemoryMetadataValues = Record<string, string | number | boolean | null>;

export interface MemoryContextRequest {
  userId: string;
  query: string;
  /** The conversation's latest turns before the message, oldest first (a follow-up's subject). */
  recentTurns?: string[];
  tokenBudget?: number;
  limit?: number;
  sessionId?: string;
  abortSignal?: AbortSignal;
}

export interface MemoryScopeStatus {
  status: 'ok' | 'timeout' | 'error' | 'skipped';
  candidates: number;
  durationMs: number;
}

export interface MemoryContextResult {
  /** The Known Facts block, or '' when nothing matched. */
  context: string;
  memoriesUsed: number;
  memoryIds: string[];
  tokensUsed: number;
  truncated: boolean;
  scopes: Record<'global' | 'user' | 'session', MemoryScopeStatus>;
  durationMs: number;
}

export interface MemorySearchRequest {
  userId: string;
  query: string;
  limit?: number;
  scopes?: MemoryScopeName[];
  sessionId?: string;
  abortSignal?: AbortSignal;
}

export interface MemorySearchHit {
  id: string;
  content: string;
  score: number;
  category: MemoryCategoryName;
  source: MemorySourceName;
  scope: MemoryScopeName;
  createdAt: number;
  updatedAt: number;
}

export interface MemoryAddRequest {
  userId?: string;
  content: string;
  scope?: MemoryScopeName;
  category?: MemoryCategoryName;
  source?: MemorySourceName;
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
  scope: MemoryScopeName;
  sessionId?: string | undefined;
  content: string;
  category: MemoryCategoryName;
  source: MemorySourceName;
  createdAt: number;
  updatedAt: number;
  metadata: MemoryMetadataValues;
}

export interface MemoryListRequest {
  userId: string;
  scope?: MemoryScopeName;
  sessionId?: string;
  limit?: number;
  offset?: number;
  abortSignal?: AbortSignal;
}
