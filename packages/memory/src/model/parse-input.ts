import type { z } from 'zod';
import { MemoryInputError } from './memory-errors.ts';

/** Validates input against a schema; the error names the first offending field. */
export function parseInput<Schema extends z.ZodType>(schema: Schema, value: unknown): z.output<Schema> {
  const result = schema.safeParse(value ?? {});
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const field = issue && issue.path.length > 0 ? issue.path.join('.') : 'body';
  throw new MemoryInputError({
    field,
    message: `Invalid ${field}: ${issue?.message ?? 'malformed input'}.`,
    cause: result.error,
  });
}
