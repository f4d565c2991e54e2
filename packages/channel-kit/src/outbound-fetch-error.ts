import { NexusError } from '@nexus/protocol';

export type OutboundFetchFailure = 'refused' | 'status' | 'network' | 'too_large' | 'timeout';

/**
 * Why a policy-checked download failed. `refused` is the policy saying no (host not allowed,
 * private address, redirect): never retryable. `status` carries the HTTP status the server gave.
 */
export class OutboundFetchError extends NexusError {
  readonly failure: OutboundFetchFailure;
  readonly status: number | undefined;

  constructor(options: { failure: OutboundFetchFailure; message: string; status?: number; cause?: unknown }) {
    super({
      code:
        options.failure === 'too_large'
          ? 'attachment_too_large'
          : options.failure === 'timeout'
            ? 'timeout'
            : 'attachment_unavailable',
      message: options.message,
      retryable:
        options.failure === 'network' ||
        options.failure === 'timeout' ||
        (options.failure === 'status' && (options.status ?? 0) >= 500),
      cause: options.cause,
    });
    this.name = 'OutboundFetchError';
    this.failure = options.failure;
    this.status = options.status;
  }
}
