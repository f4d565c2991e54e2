import { type ErrorCode, NexusError } from '@nexus/protocol';

/**
 * Bad input to the memory service (a missing person id, content too long, a negative budget).
 * `field` names the offending input so HTTP callers get a 400 that says what to fix.
 */
export class MemoryInputError extends NexusError {
  readonly field: string;

  constructor(options: { field: string; message: string; cause?: unknown }) {
    super({ code: 'bad_frame', message: options.message, retryable: false, cause: options.cause });
    this.name = 'MemoryInputError';
    this.field = options.field;
  }
}

/**
 * A store or embedder failure. `retryable` is true when the backend could not be reached or
 * timed out, false when it answered with a refusal (retrying would repeat it).
 */
export class MemoryStoreError extends NexusError {
  constructor(options: { message: string; retryable?: boolean; cause?: unknown; code?: ErrorCode }) {
    super({
      code: options.code ?? 'memory_unavailable',
      message: options.message,
      retryable: options.retryable ?? false,
      cause: options.cause,
    });
    this.name = 'MemoryStoreError';
  }
}

/** The store was indexed with another embedder; vectors of two models are never mixed. */
export class EmbedderMismatchError extends NexusError {
  constructor(options: { stored: string; configured: string }) {
    super({
      code: 'not_configured',
      message:
        `The memory store holds vectors from "${options.stored}" but the configured embedder is ` +
        `"${options.configured}". Run \`nexus memory reindex\` to re-index the memories with the configured embedder.`,
      retryable: false,
    });
    this.name = 'EmbedderMismatchError';
  }
}

/** An insert named an id that a memory (of any person) already has; nothing was written. */
export class MemoryIdTakenError extends MemoryStoreError {
  constructor(options: { id: string }) {
    super({ message: `A memory with id ${options.id} already exists.`, retryable: false });
    this.name = 'MemoryIdTakenError';
  }
}
