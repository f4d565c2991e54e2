import { MemoryStoreError } from '@nexus/memory';

/**
 * Maps a Qdrant client failure to a MemoryStoreError: a 4xx is the server saying no (not
 * retryable, its message kept); 5xx, 429, timeouts and network errors are retryable.
 */
export function toStoreError(error: unknown, operation: string): MemoryStoreError {
  const status = (error as { status?: unknown }).status;
  const data = (error as { data?: { status?: { error?: string } } }).data;
  if (typeof status === 'number') {
    const reason = data?.status?.error ?? (error as Error).message;
    return new MemoryStoreError({
      message: `Qdrant refused ${operation} (${status}): ${reason}`,
      retryable: status === 429 || status >= 500,
      cause: error,
    });
  }
  return new MemoryStoreError({
    message: `Qdrant unreachable during ${operation}.`,
    retryable: true,
    cause: error,
  });
}

export async function guard<T>(operation: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof MemoryStoreError) throw error;
    throw toStoreError(error, operation);
  }
}
