import { MAX_MEMORY_CONTENT_CHARS, type MemoryMetadata } from '../model/memory.ts';
import type { AddMemoryOptions } from '../model/memory-api.ts';

/** What an importer produced: memories to add, and what it could not use, with where it was. */
export interface MemoryImport {
  items: AddMemoryOptions[];
  skipped: Array<{ where: string; reason: string }>;
}

/**
 * Metadata Nexus can store from a foreign record: strings, numbers, booleans and null as they
 * are; anything else as its JSON text. Keys and values past the limits are cut, never rejected.
 */
export function importedMetadata(entries: Record<string, unknown>): MemoryMetadata {
  const metadata: MemoryMetadata = {};
  for (const [key, value] of Object.entries(entries)) {
    if (value === undefined || Object.keys(metadata).length >= 32) continue;
    const plain =
      value === null || typeof value === 'number' || typeof value === 'boolean'
        ? value
        : (typeof value === 'string' ? value : JSON.stringify(value)).slice(0, 2_000);
    metadata[key.slice(0, 128)] = plain;
  }
  return metadata;
}

/** Epoch ms of an ISO date (or epoch seconds/ms), undefined when absent or unreadable. */
export function importedTime(value: unknown): number | undefined {
  if (typeof value === 'number' && Number.isFinite(value) && value >= 0)
    return Math.round(value < 1e11 ? value * 1000 : value);
  if (typeof value !== 'string' || value.trim() === '') return undefined;
  // Mem0 writes times without a zone in places; those are UTC.
  const text = /[zZ]|[+-]\d\d:?\d\d$/u.test(value) ? value : `${value}Z`;
  const time = Date.parse(text);
  return Number.isNaN(time) ? undefined : time;
}

/** Content too long for one memory is skipped with a reason rather than cut mid-sentence. */
export function contentProblem(content: string): string | undefined {
  if (content.trim() === '') return 'empty';
  if (content.length > MAX_MEMORY_CONTENT_CHARS) return `longer than ${MAX_MEMORY_CONTENT_CHARS} characters`;
  return undefined;
}
