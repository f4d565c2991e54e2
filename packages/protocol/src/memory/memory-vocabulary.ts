import { z } from 'zod';

/**
 * Where a memory belongs: one person (`user`), everyone (`global`), or one conversation
 * (`session`). Declared once here; memory validates with these schemas and core, the HTTP client
 * and the stores import them, so no package keeps its own list.
 */
export const memoryScopeSchema = z.enum(['user', 'global', 'session']);
export type MemoryScope = z.infer<typeof memoryScopeSchema>;
export const MEMORY_SCOPES: readonly MemoryScope[] = memoryScopeSchema.options;

/**
 * What kind of fact a memory is, in standing order: what the person prefers, then facts about
 * them, then inferred habits, then dated events. Ranking ties, standing facts and the extraction
 * prompt all take their order from this one list.
 */
export const memoryCategorySchema = z.enum(['preference', 'fact', 'pattern', 'event']);
export type MemoryCategory = z.infer<typeof memoryCategorySchema>;
export const MEMORY_CATEGORIES: readonly MemoryCategory[] = memoryCategorySchema.options;

/** Who said it, the person first: a fact the person stated outranks one that was inferred. */
export const memorySourceSchema = z.enum(['user_explicit', 'inferred']);
export type MemorySource = z.infer<typeof memorySourceSchema>;
export const MEMORY_SOURCES: readonly MemorySource[] = memorySourceSchema.options;

/** The context scopes memory loads for a turn, each reported on its own. */
export type MemoryContextScope = 'global' | 'user' | 'session';

export type MemoryMetadataValues = Record<string, string | number | boolean | null>;
