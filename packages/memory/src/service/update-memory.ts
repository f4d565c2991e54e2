import { contentHash } from '../model/content-hash.ts';
import type { Memory } from '../model/memory.ts';
import type { updateMemoryOptionsSchema } from '../model/memory-api.ts';
import { MemoryInputError } from '../model/memory-errors.ts';
import type { MemoryStore } from '../model/memory-store.ts';

export interface UpdateMemoryDependencies {
  store: MemoryStore;
  embed: (text: string, abortSignal: AbortSignal | undefined) => Promise<Float32Array | undefined>;
  now: () => number;
}

/**
 * Rewrites one memory in place, as the person corrected it: the id, creation time, scope and
 * session stay (so what refers to the memory, and its age, stay true); content, hash, vector and
 * category change, the source becomes `user_explicit` and `updatedAt` now. Content another of the
 * person's memories already has is refused instead of making two copies.
 */
export async function updateMemory(
  dependencies: UpdateMemoryDependencies,
  input: ReturnType<typeof updateMemoryOptionsSchema.parse>,
): Promise<Memory | undefined> {
  const { store } = dependencies;
  const { userId, id, abortSignal } = input;
  const existing = await store.get({ userId, id, abortSignal });
  if (existing === undefined) return undefined;
  const hash = contentHash(input.content);
  const category = input.category ?? existing.category;
  if (hash === existing.hash && category === existing.category) return existing;
  const twin = hash === existing.hash ? undefined : await store.findByHash({ userId, hash, abortSignal });
  if (twin !== undefined && twin.id !== id) {
    throw new MemoryInputError({
      field: 'content',
      message: 'Invalid content: another memory already says this; delete one of them instead.',
    });
  }
  const embedding = await dependencies.embed(input.content, abortSignal);
  const memory: Memory = {
    ...existing,
    content: input.content,
    hash,
    category,
    source: 'user_explicit',
    updatedAt: Math.max(existing.updatedAt, dependencies.now()),
  };
  await store.update({ memory, embedding, abortSignal });
  return memory;
}
