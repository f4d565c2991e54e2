import { z } from 'zod';

/**
 * Stable error codes shared by every package and sent to clients. A code names what went wrong,
 * never how it was detected, so clients can react without parsing messages.
 */
export const errorCodeSchema = z.enum([
  'bad_frame',
  'unknown_frame',
  'payload_too_large',
  'unauthorized',
  'rate_limited',
  'invalid_intent',
  'invalid_config',
  'duplicate',
  'not_configured',
  'model_unavailable',
  'model_rejected',
  'model_timeout',
  'memory_unavailable',
  'channel_unavailable',
  /** The job queue (Redis) could not be reached within the operator's deadline; the message is kept. */
  'queue_unavailable',
  'shutting_down',
  'timeout',
  'attachment_too_large',
  'attachment_unavailable',
  'attachment_unsupported',
  'attachment_corrupt',
  'internal',
]);
export type ErrorCode = z.infer<typeof errorCodeSchema>;

export interface NexusErrorOptions {
  code: ErrorCode;
  message: string;
  retryable?: boolean;
  cause?: unknown;
}

/**
 * Base class of every error Nexus throws. `retryable` separates "the remote could not be reached
 * or is busy" (retry may help) from "the remote said no" (retrying repeats the failure).
 */
export class NexusError extends Error {
  readonly code: ErrorCode;
  readonly retryable: boolean;

  constructor(options: NexusErrorOptions) {
    super(options.message, { cause: options.cause });
    this.name = 'NexusError';
    this.code = options.code;
    this.retryable = options.retryable ?? false;
  }
}

/** Normalises anything thrown into a NexusError, keeping the original as `cause`. */
export function toNexusError(error: unknown, fallback: ErrorCode = 'internal'): NexusError {
  if (error instanceof NexusError) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new NexusError({ code: fallback, message, cause: error });
}
