import type { z } from 'zod';
import { type MemoryContextOptions, memoryContextOptionsSchema } from './memory-api.ts';
import { parseInput } from './parse-input.ts';

export type ParsedContextOptions = z.output<typeof memoryContextOptionsSchema>;

/**
 * `memoryContextOptionsSchema` applied to a context request, without zod when the request is
 * already in the schema's own form (what core sends every turn): every field checked as the
 * schema checks it, the defaults filled in, unknown keys left out. Anything else (a value the
 * schema would trim, coerce, default in a nested object or refuse) goes through the schema itself,
 * so the result and the error are exactly the schema's. The zod parse was ~4 KB of allocation on
 * every turn, for options core had just built. parse-context-options.test.ts checks this against
 * every limit and field the schema declares (`schemaEdgeCases`); a rule it cannot read there (a
 * `.refine`, a new format) has to be added here by hand with the schema's.
 */
export function parseContextOptions(options: MemoryContextOptions): ParsedContextOptions {
  const fast = canonicalContextOptions(options);
  return fast ?? parseInput(memoryContextOptionsSchema, options);
}

function canonicalContextOptions(value: unknown): ParsedContextOptions | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const input = value as Record<string, unknown>;
  const { userId, query, recentTurns, sessionId, standing, abortSignal } = input;
  if (!isTrimmedId(userId)) return undefined;
  if (typeof query !== 'string' || query.length > 32_000) return undefined;
  if (recentTurns !== undefined && !isRecentTurns(recentTurns)) return undefined;
  if (sessionId !== undefined && !isTrimmedId(sessionId)) return undefined;
  if (abortSignal !== undefined && !(abortSignal instanceof AbortSignal)) return undefined;
  const tokenBudget = intOrDefault(input.tokenBudget, 0, 200_000, 2_000);
  const globalTokenBudget = intOrDefault(input.globalTokenBudget, 0, 200_000, 200);
  const limit = intOrDefault(input.limit, 1, 200, 20);
  if (tokenBudget === undefined || globalTokenBudget === undefined || limit === undefined) return undefined;
  let standingOut: ParsedContextOptions['standing'];
  if (standing !== undefined) {
    if (typeof standing !== 'object' || standing === null) return undefined;
    const { limit: standingLimit, tokenBudget: standingBudget } = standing as Record<string, unknown>;
    if (!isIntIn(standingLimit, 1, 200) || !isIntIn(standingBudget, 0, 200_000)) return undefined;
    standingOut = { limit: standingLimit, tokenBudget: standingBudget };
  }
  const parsed: ParsedContextOptions = { userId, query, tokenBudget, globalTokenBudget, limit };
  if (recentTurns !== undefined) parsed.recentTurns = recentTurns;
  if (sessionId !== undefined) parsed.sessionId = sessionId;
  if (standingOut !== undefined) parsed.standing = standingOut;
  if (abortSignal !== undefined) parsed.abortSignal = abortSignal;
  return parsed;
}

/** `userIdSchema` / `sessionIdSchema` (trimmed, 1–512 characters), for a value trimming leaves as is. */
function isTrimmedId(value: unknown): value is string {
  return typeof value === 'string' && value.length >= 1 && value.length <= 512 && value.trim() === value;
}

function isRecentTurns(value: unknown): value is string[] {
  if (!Array.isArray(value) || value.length > 20) return false;
  for (const turn of value) if (typeof turn !== 'string' || turn.length > 8_000) return false;
  return true;
}

function isIntIn(value: unknown, min: number, max: number): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max;
}

/** The value, the default when it is absent, `undefined` when the schema would refuse it. */
function intOrDefault(value: unknown, min: number, max: number, fallback: number): number | undefined {
  if (value === undefined) return fallback;
  return isIntIn(value, min, max) ? value : undefined;
}
