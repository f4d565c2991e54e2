import type { Logger, NexusError } from '@nexus/protocol';
import { toModelError } from '../errors/model-error.ts';
import type { ReplyStream } from './reply-stream.ts';

/**
 * Where a turn goes when a stage throws: the turn's failure, logged and shown to the person as an
 * error event (returned for the report and store-turn-outcome). Answers known in advance are not
 * thrown: a stage returns them (`known-answer.ts`).
 */
export function stopReply(
  error: unknown,
  events: ReplyStream,
  shuttingDown: boolean,
  logger: Logger,
): NexusError {
  const failure = toModelError(error, { shuttingDown });
  const level = failure.code === 'internal' ? 'error' : 'warn';
  logger[level]({ code: failure.code, err: error }, 'turn failed');
  events.push({ type: 'error', code: failure.code, message: failure.message, retryable: failure.retryable });
  return failure;
}
