import { NexusError } from '@nexus/protocol';

/** A conversation lane already holds its maximum of waiting tasks; the caller should shed load. */
export class QueueFullError extends NexusError {
  readonly key: string;

  constructor(options: { key: string; maxQueued: number }) {
    super({
      code: 'rate_limited',
      message: `Too many queued tasks for "${options.key}" (max ${options.maxQueued})`,
      retryable: true,
    });
    this.name = 'QueueFullError';
    this.key = options.key;
  }
}
