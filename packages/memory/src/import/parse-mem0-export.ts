import { z } from 'zod';
import type { AddMemoryOptions } from '../model/memory-api.ts';
import { contentProblem, importedMetadata, importedTime, type MemoryImport } from './memory-import-item.ts';

const mem0RecordSchema = z.looseObject({
  id: z.string().optional(),
  memory: z.string(),
  user_id: z.string().nullish(),
  agent_id: z.string().nullish(),
  run_id: z.string().nullish(),
  app_id: z.string().nullish(),
  hash: z.string().nullish(),
  created_at: z.union([z.string(), z.number()]).nullish(),
  updated_at: z.union([z.string(), z.number()]).nullish(),
  metadata: z.record(z.string(), z.unknown()).nullish(),
  categories: z.array(z.string()).nullish(),
});

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/iu;

/**
 * A Mem0 export: what `Memory.get_all()` / `MemoryClient.get_all()` return (`{"results": [...]}`
 * or a bare list) or the platform's export (`{"memories": [...]}`), or the same records as JSON
 * Lines. `memory` becomes the content, `user_id` the person (unless `userId` overrides it), the
 * times are kept, a UUID id is kept (a re-import finds it), and the rest goes to metadata.
 */
export function parseMem0Export(text: string, options: { userId?: string } = {}): MemoryImport {
  const result: MemoryImport = { items: [], skipped: [] };
  for (const [where, record] of mem0Records(text, result)) {
    const parsed = mem0RecordSchema.safeParse(record);
    if (!parsed.success) {
      result.skipped.push({ where, reason: 'not a Mem0 memory (no "memory" text)' });
      continue;
    }
    const entry = parsed.data;
    const userId = options.userId ?? entry.user_id ?? undefined;
    const problem = contentProblem(entry.memory);
    if (problem || !userId) {
      result.skipped.push({ where, reason: problem ?? 'no user_id; pass --user <person>' });
      continue;
    }
    const createdAt = importedTime(entry.created_at);
    const updatedAt = importedTime(entry.updated_at) ?? createdAt;
    const categories = entry.categories ?? [];
    const item: AddMemoryOptions = {
      userId,
      content: entry.memory.trim(),
      // Mem0's categories are topics (food, travel, …); only its preference topic maps to ours.
      category: categories.some((name) => /prefer/iu.test(name)) ? 'preference' : 'fact',
      // Mem0 stores what its model extracted from conversations.
      source: 'inferred',
      metadata: importedMetadata({
        ...(entry.metadata ?? {}),
        imported_from: 'mem0',
        mem0_id: entry.id,
        mem0_user_id: entry.user_id ?? undefined,
        mem0_agent_id: entry.agent_id ?? undefined,
        mem0_run_id: entry.run_id ?? undefined,
        mem0_app_id: entry.app_id ?? undefined,
        mem0_categories: categories.length > 0 ? categories.join(',') : undefined,
      }),
    };
    if (entry.id && UUID.test(entry.id)) item.id = entry.id.toLowerCase();
    if (createdAt !== undefined) item.createdAt = createdAt;
    if (updatedAt !== undefined) item.updatedAt = Math.max(updatedAt, createdAt ?? 0);
    result.items.push(item);
  }
  return result;
}

function mem0Records(text: string, result: MemoryImport): Array<[string, unknown]> {
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch {
    // JSON Lines: one record per line.
    const records: Array<[string, unknown]> = [];
    text.split('\n').forEach((line, index) => {
      if (line.trim() === '') return;
      try {
        records.push([`line ${index + 1}`, JSON.parse(line)]);
      } catch {
        result.skipped.push({ where: `line ${index + 1}`, reason: 'not valid JSON' });
      }
    });
    return records;
  }
  const list = Array.isArray(document)
    ? document
    : document && typeof document === 'object'
      ? ((document as Record<string, unknown>).results ?? (document as Record<string, unknown>).memories)
      : undefined;
  if (!Array.isArray(list)) {
    result.skipped.push({
      where: 'file',
      reason: 'expected a list, {"results": [...]} or {"memories": [...]}',
    });
    return [];
  }
  return list.map((record, index) => [`record ${index + 1}`, record]);
}
