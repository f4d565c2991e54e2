import { memoryCategorySchema, memoryScopeSchema, memorySourceSchema } from '@nexus/protocol';
import { z } from 'zod';

/**
 * The partition that holds global memories (facts true for every person, e.g. the assistant's
 * name). Person ids may never be this value, so a person can never read or reset it by accident.
 */
export const GLOBAL_USER_ID = '*';

/** Longest memory text accepted; longer content is rejected, never truncated. */
export const MAX_MEMORY_CONTENT_CHARS = 4_000;

export {
  MEMORY_CATEGORIES,
  MEMORY_SCOPES,
  MEMORY_SOURCES,
  type MemoryCategory,
  type MemoryScope,
  type MemorySource,
  memoryCategorySchema,
  memoryScopeSchema,
  memorySourceSchema,
} from '@nexus/protocol';

export const userIdSchema = z.string().trim().min(1).max(512);
export const sessionIdSchema = z.string().trim().min(1).max(512);
export const memoryContentSchema = z.string().trim().min(1).max(MAX_MEMORY_CONTENT_CHARS);
export const memoryMetadataSchema = z
  .record(z.string().max(128), z.union([z.string().max(2_000), z.number(), z.boolean(), z.null()]))
  .refine((value) => Object.keys(value).length <= 32, 'at most 32 metadata keys');
export type MemoryMetadata = z.infer<typeof memoryMetadataSchema>;

/** One remembered fact. Times are epoch milliseconds. */
export const memorySchema = z.object({
  id: z.uuid(),
  /** The person; `GLOBAL_USER_ID` for global memories. Every query is filtered by it. */
  userId: userIdSchema,
  scope: memoryScopeSchema,
  /** The session the memory was first told in (required for scope `session`). */
  sessionId: sessionIdSchema.optional(),
  content: memoryContentSchema,
  category: memoryCategorySchema,
  source: memorySourceSchema,
  createdAt: z.number().int().nonnegative(),
  /** Set on insert and whenever a near-duplicate restates the memory; ages are counted from it. */
  updatedAt: z.number().int().nonnegative(),
  lastUsedAt: z.number().int().nonnegative().optional(),
  /** sha-256 of the normalised content; an exact duplicate is recognised by it. */
  hash: z.string().length(64),
  metadata: memoryMetadataSchema,
});
export type Memory = z.infer<typeof memorySchema>;

/** Per-person and total counts, as `stats` reports them. Global memories are not a person. */
export interface MemoryStats {
  totalMemories: number;
  totalUsers: number;
  totalSessions: number;
  globalMemories: number;
  users: MemoryUserStats[];
}

export interface MemoryUserStats {
  userId: string;
  memories: number;
  sessions: number;
}
