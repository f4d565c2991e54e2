import { memorySchema } from '../model/memory.ts';
import type { AddMemoryOptions } from '../model/memory-api.ts';
import type { MemoryImport } from './memory-import-item.ts';

const lineSchema = memorySchema.partial({ id: true, hash: true, createdAt: true, updatedAt: true });

/**
 * Nexus's own export: one memory per line, every field as `nexus memory export` writes it. The
 * id and times are kept; `hash` is recomputed from the content and `lastUsedAt` starts afresh.
 */
export function parseMemoryJsonl(text: string): MemoryImport {
  const result: MemoryImport = { items: [], skipped: [] };
  text.split('\n').forEach((line, index) => {
    if (line.trim() === '') return;
    const where = `line ${index + 1}`;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      result.skipped.push({ where, reason: 'not valid JSON' });
      return;
    }
    const parsed = lineSchema.safeParse(value);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      result.skipped.push({ where, reason: `${issue?.path.join('.') || 'line'}: ${issue?.message}` });
      return;
    }
    const memory = parsed.data;
    const item: AddMemoryOptions = {
      userId: memory.userId,
      scope: memory.scope,
      content: memory.content,
      category: memory.category,
      source: memory.source,
      metadata: memory.metadata,
    };
    if (memory.id) item.id = memory.id;
    if (memory.sessionId) item.sessionId = memory.sessionId;
    if (memory.createdAt !== undefined) item.createdAt = memory.createdAt;
    if (memory.updatedAt !== undefined) item.updatedAt = memory.updatedAt;
    result.items.push(item);
  });
  return result;
}
