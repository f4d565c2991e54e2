import { MemoryStoreError } from '@nexus/memory';

/**
 * A person's write could not take the shared Redis lease in time: Redis is unreachable, or another
 * replica held it past the wait. Retryable (HTTP 503): nothing was written, and an extraction job
 * retries; replies never wait on it, since reading memory takes no lease.
 */
export class PersonLaneUnavailableError extends MemoryStoreError {
  constructor(options: { message: string; cause?: unknown }) {
    super({ message: options.message, retryable: true, cause: options.cause });
    this.name = 'PersonLaneUnavailableError';
  }
}
