import { describeFailure } from '../../errors/model-error.ts';

/** One line for a log field, a tool result or a parked job's reason: "TypeError: fetch failed (status 503)". */
export function failureMessage(error: unknown): string {
  const { name, message, statusCode } = describeFailure(error);
  return `${String(name)}: ${String(message)}${statusCode === undefined ? '' : ` (status ${String(statusCode)})`}`;
}
