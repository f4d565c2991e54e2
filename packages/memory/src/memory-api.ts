import { z } from 'zod';
import {
  type Memory,
  type MemoryCategory,
  type MemoryScope,
  type MemorySource,
  type MemoryStats,
  memoryCategorySchema,
  memoryContentSchema,
  memoryMetadataSchema,
  memoryScopeSchema,
  memorySourceSchema,
  sessionIdSchema,
  userIdSchema,
} from './memory.ts';

/** A time Nexus accepts: from 1970 up to a day ahead of this clock (clock skew), never later. */
const epochMillisSchema = z
  .number()
  .int()
  .nonnegative()
  .refine((value) => value <= Date.now() + 86_400_000, 'must not be in the future');

/**
 * The conversation's latest turns before the message, oldest first: their words join the query at
 * a lower weight, so a follow-up ("and what about her sister?") still finds what it refers to.
 */
const recentTurnsSchema = z.array(z.string().max(8_000)).max(20).optional();

const abortSignalSchema = z.custom<AbortSignal>((value) => value instanceof AbortSignal).optional();

export const addMemoryOptionsSchema = z
  .object({
    /** The person; `GLOBAL_USER_ID` (or omitted) with scope `global`. */
    userId: userIdSchema.optional(),
    content: memoryContentSchema,
    scope: memoryScopeSchema.default('user'),
    category: memoryCategorySchema.default('fact'),
    /** Defaults to `inferred`: never claim the person said something unless the caller knows. */
    source: memorySourceSchema.default('inferred'),
    sessionId: sessionIdSchema.optional(),
    metadata: memoryMetadataSchema.default({}),
    /**
     * For imports: the id, creation and last-update times (epoch ms) the memory had elsewhere.
     * Omitted, a new id and the current time; a known id or content is not stored twice.
     */
    id: z.uuid().optional(),
    createdAt: epochMillisSchema.optional(),
    updatedAt: epochMillisSchema.optional(),
    abortSignal: abortSignalSchema,
  })
  .refine(
    (input) =>
      input.createdAt === undefined || input.updatedAt === undefined || input.updatedAt >= input.createdAt,
    {
      path: ['updatedAt'],
      message: 'updatedAt must not be before createdAt',
    },
  );
export type AddMemoryOptions = z.input<typeof addMemoryOptionsSchema>;

export interface AddMemoryResult {
  /** `unchanged`: exact duplicate (a no-op, apart from linking a new session). */
  action: 'inserted' | 'updated' | 'unchanged';
  /** True when the content matched an existing memory (exactly, or cosine ≥ the threshold). */
  deduplicated: boolean;
  memory: Memory;
  /** The content an update replaced. */
  previousContent?: string;
}

export const searchMemoryOptionsSchema = z.object({
  userId: userIdSchema,
  query: z.string().max(8_000),
  recentTurns: recentTurnsSchema,
  limit: z.number().int().min(1).max(200).default(10),
  scopes: z.array(memoryScopeSchema).min(1).optional(),
  sessionId: sessionIdSchema.optional(),
  abortSignal: abortSignalSchema,
});
export type SearchMemoryOptions = z.input<typeof searchMemoryOptionsSchema>;

export interface MemorySearchResult {
  id: string;
  content: string;
  /** `relevanceWeight·relevance + recencyWeight·0.5^(age/halfLife)`. */
  score: number;
  /** Fused lexical + dense relevance in [0, 1]. */
  relevance: number;
  category: MemoryCategory;
  source: MemorySource;
  scope: MemoryScope;
  createdAt: number;
  updatedAt: number;
  metadata: Memory['metadata'];
}

export const memoryContextOptionsSchema = z.object({
  userId: userIdSchema,
  query: z.string().max(32_000),
  recentTurns: recentTurnsSchema,
  tokenBudget: z.number().int().min(0).max(200_000).default(2_000),
  /**
   * Global memories go into every context, most important first, within this many tokens of
   * `tokenBudget` whatever the message says; further global word matches compete as usual.
   */
  globalTokenBudget: z.number().int().min(0).max(200_000).default(200),
  limit: z.number().int().min(1).max(200).default(20),
  sessionId: sessionIdSchema.optional(),
  abortSignal: abortSignalSchema,
});
export type MemoryContextOptions = z.input<typeof memoryContextOptionsSchema>;

export type ContextScopeName = 'global' | 'user' | 'session';

export interface ContextScopeReport {
  /** `timeout`/`error`: the scope was skipped and the block built from the others. */
  status: 'ok' | 'timeout' | 'error' | 'skipped';
  candidates: number;
  durationMs: number;
  error?: string;
}

export interface MemoryContext {
  /** Starts with `## Known Facts (from memory)`; empty when no memory fits or matches. */
  context: string;
  memoriesUsed: number;
  memoryIds: string[];
  tokensUsed: number;
  tokenBudget: number;
  /** True exactly when a candidate (among the best `limit`) was left out for lack of budget. */
  truncated: boolean;
  scopes: Record<ContextScopeName, ContextScopeReport>;
  durationMs: number;
  tokenizer: string;
}

export const listMemoriesOptionsSchema = z.object({
  userId: userIdSchema,
  scope: memoryScopeSchema.optional(),
  sessionId: sessionIdSchema.optional(),
  limit: z.number().int().min(1).max(1_000).default(100),
  offset: z.number().int().min(0).default(0),
  abortSignal: abortSignalSchema,
});
export type ListMemoriesOptions = z.input<typeof listMemoriesOptionsSchema>;

export const standingFactsOptionsSchema = z.object({
  userId: userIdSchema,
  limit: z.number().int().min(1).max(200).default(10),
  abortSignal: abortSignalSchema,
});
export type StandingFactsOptions = z.input<typeof standingFactsOptionsSchema>;

export const memoryRefOptionsSchema = z.object({
  userId: userIdSchema,
  id: z.uuid(),
  abortSignal: abortSignalSchema,
});
export type MemoryRefOptions = z.input<typeof memoryRefOptionsSchema>;

export const updateMemoryOptionsSchema = z.object({
  userId: userIdSchema,
  id: z.uuid(),
  content: memoryContentSchema,
  /** Omitted: the memory keeps its category. */
  category: memoryCategorySchema.optional(),
  abortSignal: abortSignalSchema,
});
export type UpdateMemoryOptions = z.input<typeof updateMemoryOptionsSchema>;

export const resetOptionsSchema = z.object({ userId: userIdSchema, abortSignal: abortSignalSchema });
export const sessionMemoriesOptionsSchema = z.object({
  sessionId: sessionIdSchema,
  userId: userIdSchema.optional(),
  abortSignal: abortSignalSchema,
});
export const statsOptionsSchema = z.object({
  userId: userIdSchema.optional(),
  abortSignal: abortSignalSchema,
});

export interface MemoryHealth {
  status: 'ok';
  /** `lexical` when no embedder is configured. */
  search: 'hybrid' | 'lexical';
  embedder?: string;
  /** Why this search is on (configured, detected at the provider, or what was missing). */
  reason?: string;
  tokenizer: string;
}

/**
 * What core calls. `MemoryService` (in process) and `createMemoryClient` (over HTTP) both
 * implement it, so core cannot tell them apart.
 */
export interface MemoryApi {
  add(options: AddMemoryOptions): Promise<AddMemoryResult>;
  search(options: SearchMemoryOptions): Promise<MemorySearchResult[]>;
  context(options: MemoryContextOptions): Promise<MemoryContext>;
  list(options: ListMemoriesOptions): Promise<Memory[]>;
  /**
   * The person's standing facts: their `limit` best user-scope memories with no query (recency
   * plus the category and source prior, `compareStanding`), best first. An indexed read, whatever
   * the person holds.
   */
  standingFacts(options: StandingFactsOptions): Promise<Memory[]>;
  get(options: MemoryRefOptions): Promise<Memory | undefined>;
  /**
   * The person's correction of one memory: new content (and category), same id and creation time,
   * source `user_explicit`. Undefined when the person has no such memory.
   */
  update(options: UpdateMemoryOptions): Promise<Memory | undefined>;
  delete(options: MemoryRefOptions): Promise<{ deleted: boolean }>;
  reset(options: z.input<typeof resetOptionsSchema>): Promise<{ deleted: number }>;
  sessionMemories(options: z.input<typeof sessionMemoriesOptionsSchema>): Promise<Memory[]>;
  stats(options?: z.input<typeof statsOptionsSchema>): Promise<MemoryStats>;
  health(options?: { abortSignal?: AbortSignal }): Promise<MemoryHealth>;
}
