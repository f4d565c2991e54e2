/**
 * A failure the fake Bot API answers with instead of doing the call. The named kinds carry
 * Telegram's own wording, so adapter code that reads `description` is tested for real.
 */
export type FakeTelegramFailure =
  | { kind: 'cant_parse_entities' }
  | { kind: 'blocked' }
  | { kind: 'rate_limited'; retryAfterSeconds: number }
  | { kind: 'conflict' }
  | { kind: 'server_error' }
  /** Destroys the socket without an answer: the client sees a network error. */
  | { kind: 'drop_connection' }
  | { kind: 'custom'; errorCode: number; description: string; parameters?: Record<string, unknown> };

export interface FailureBody {
  ok: false;
  error_code: number;
  description: string;
  parameters?: Record<string, unknown>;
}

export function failureBody(failure: Exclude<FakeTelegramFailure, { kind: 'drop_connection' }>): FailureBody {
  switch (failure.kind) {
    case 'cant_parse_entities':
      return errorBody(400, 'Bad Request: can\'t parse entities: Unsupported start tag "x" at byte offset 0');
    case 'blocked':
      return errorBody(403, 'Forbidden: bot was blocked by the user');
    case 'rate_limited':
      return {
        ...errorBody(429, `Too Many Requests: retry after ${failure.retryAfterSeconds}`),
        parameters: { retry_after: failure.retryAfterSeconds },
      };
    case 'conflict':
      return errorBody(
        409,
        'Conflict: terminated by other getUpdates request; make sure that only one bot instance is running',
      );
    case 'server_error':
      return errorBody(500, 'Internal Server Error');
    case 'custom':
      return failure.parameters === undefined
        ? errorBody(failure.errorCode, failure.description)
        : { ...errorBody(failure.errorCode, failure.description), parameters: failure.parameters };
  }
}

export function errorBody(errorCode: number, description: string): FailureBody {
  return { ok: false, error_code: errorCode, description };
}
