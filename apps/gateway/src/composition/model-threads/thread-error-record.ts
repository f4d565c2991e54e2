/*
 * The sending half of thread-errors.ts, without the AI SDK: a model thread loads only the
 * provider's SDK, not the `ai` package the receiving half rebuilds errors with.
 */

/**
 * An error as it crosses between threads. A structured clone keeps an Error's message and stack
 * but drops its class and its own fields (`statusCode`, `isRetryable`, `code`…), and the AI SDK's
 * retry policy and core's error mapping read exactly those; so errors travel as this record and
 * are built again, as the same class with the same fields, on the other side.
 */
export interface ThreadError {
  readonly threadError: true;
  name: string;
  message: string;
  stack: string | undefined;
  /** The error's own enumerable fields, each cloneable (anything else as its string). */
  fields: Record<string, unknown>;
  cause?: unknown;
}

/** How deep a chain of causes is followed; deeper ones arrive as their message. */
const MAX_CAUSE_DEPTH = 8;

export function isThreadError(value: unknown): value is ThreadError {
  return typeof value === 'object' && value !== null && (value as ThreadError).threadError === true;
}

/** `value` ready for postMessage: an Error (with its causes) as a ThreadError, anything else as is. */
export function toThreadError(value: unknown, depth = 0): unknown {
  if (!(value instanceof Error)) return value;
  if (depth >= MAX_CAUSE_DEPTH) return value.message;
  const fields: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    if (key === 'cause' || key === 'name' || key === 'message' || key === 'stack') continue;
    fields[key] = cloneableField((value as unknown as Record<string, unknown>)[key], depth);
  }
  return {
    threadError: true,
    name: value.name,
    message: value.message,
    stack: value.stack,
    fields,
    ...('cause' in value ? { cause: toThreadError(value.cause, depth + 1) } : {}),
  } satisfies ThreadError;
}

function cloneableField(value: unknown, depth: number): unknown {
  if (value instanceof Error) return toThreadError(value, depth + 1);
  if (typeof value === 'function' || typeof value === 'symbol') return undefined;
  try {
    structuredClone(value);
    return value;
  } catch {
    return String(value);
  }
}
