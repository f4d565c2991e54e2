import { NexusError } from '@nexus/protocol';
import { APICallError, RetryError, StreamProviderError } from 'ai';

/** What the user reads for each failure; short and honest, never a stack trace or a raw body. */
export const MODEL_ERROR_MESSAGES = {
  model_rejected: 'The model provider rejected the request; the operator should check the API key.',
  model_rejected_request:
    'The model provider rejected the request; the operator should check the model settings.',
  model_unavailable: 'The model provider is unavailable right now; please try again in a moment.',
  model_timeout: 'The model took too long to answer; please try again.',
  shutting_down: 'The assistant is restarting; please send your message again in a moment.',
  internal: 'Something went wrong while writing the reply.',
} as const;

/**
 * Maps whatever a model call threw to a NexusError the user may see. "The provider said no"
 * (401/403, other 4xx) is not retryable; "the provider could not answer" (429, 5xx, network,
 * stream errors) and timeouts are. The original error stays as `cause`, for the log only.
 */
export function toModelError(error: unknown, context: { shuttingDown: boolean }): NexusError {
  if (error instanceof NexusError) return error;
  if (context.shuttingDown) {
    return new NexusError({
      code: 'shutting_down',
      message: MODEL_ERROR_MESSAGES.shutting_down,
      retryable: true,
      cause: error,
    });
  }
  const root = RetryError.isInstance(error) ? error.lastError : error;
  if (isTimeout(root)) {
    return new NexusError({
      code: 'model_timeout',
      message: MODEL_ERROR_MESSAGES.model_timeout,
      retryable: true,
      cause: error,
    });
  }
  if (APICallError.isInstance(root)) {
    const status = root.statusCode;
    if (status === 401 || status === 403) {
      return new NexusError({
        code: 'model_rejected',
        message: MODEL_ERROR_MESSAGES.model_rejected,
        cause: error,
      });
    }
    if (
      status !== undefined &&
      status >= 400 &&
      status < 500 &&
      status !== 408 &&
      status !== 409 &&
      status !== 429
    ) {
      return new NexusError({
        code: 'model_rejected',
        message: MODEL_ERROR_MESSAGES.model_rejected_request,
        cause: error,
      });
    }
    return unavailable(error);
  }
  if (StreamProviderError.isInstance(root) || isNetworkError(root)) return unavailable(error);
  return new NexusError({ code: 'internal', message: MODEL_ERROR_MESSAGES.internal, cause: error });
}

/** A compact description of a model failure for the log line (no request bodies, no keys). */
export function describeFailure(error: unknown): Record<string, unknown> {
  const root = RetryError.isInstance(error) ? error.lastError : error;
  const description: Record<string, unknown> = {
    name: root instanceof Error ? root.name : typeof root,
    message: root instanceof Error ? root.message : String(root),
  };
  if (APICallError.isInstance(root)) {
    description.statusCode = root.statusCode;
    description.url = root.url;
  }
  if (RetryError.isInstance(error)) description.attempts = error.errors.length;
  return description;
}

function unavailable(cause: unknown): NexusError {
  return new NexusError({
    code: 'model_unavailable',
    message: MODEL_ERROR_MESSAGES.model_unavailable,
    retryable: true,
    cause,
  });
}

function isTimeout(error: unknown): boolean {
  return error instanceof Error && error.name === 'TimeoutError';
}

function isNetworkError(error: unknown): boolean {
  for (
    let current = error, depth = 0;
    current instanceof Error && depth < 5;
    current = current.cause, depth++
  ) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && /^(ECONN|ENOTFOUND|EAI_AGAIN|ETIMEDOUT|EPIPE|UND_ERR)/.test(code))
      return true;
    if (current instanceof TypeError && current.message === 'fetch failed') return true;
  }
  return false;
}
