import { MODEL_ERROR_MESSAGES } from '@nexus/core';
import { NexusError } from '@nexus/protocol';
import type { RunMessage } from './agent-run-protocol.ts';
import { createMessageQueue, type MessageQueue } from './message-queue.ts';
import type { MessageRouter } from './message-router.ts';

/** What reaches a turn: its run's messages, a status to show, or the end of its dispatch. */
export type TurnEvent =
  | { kind: 'run'; message: RunMessage }
  | { kind: 'status'; text: string }
  | { kind: 'failed'; error: unknown };

export interface OpenTurn {
  events: MessageQueue<TurnEvent>;
  /** Aborts on the caller's signal, and on the run's timeout. */
  signal: AbortSignal;
  /** The run's timeout counts from its latest dispatch, not from time spent waiting for Redis. */
  restartTimer(): void;
  close(): void;
}

/** The turn's inbox registration, abort wiring and timeout. */
export function openTurn(
  options: { router: MessageRouter<RunMessage>; timeoutMs: number },
  turnId: string,
  outer: AbortSignal | undefined,
): OpenTurn {
  const events = createMessageQueue<TurnEvent>();
  const local = new AbortController();
  const forwardAbort = () => local.abort(outer?.reason);
  if (outer?.aborted) forwardAbort();
  outer?.addEventListener('abort', forwardAbort, { once: true });
  let timer: ReturnType<typeof setTimeout> | undefined;
  const restartTimer = () => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      local.abort(
        new NexusError({
          code: 'model_timeout',
          message: MODEL_ERROR_MESSAGES.model_timeout,
          retryable: true,
        }),
      );
    }, options.timeoutMs);
  };
  restartTimer();
  options.router.register(turnId, (message) => events.push({ kind: 'run', message }));
  return {
    events,
    signal: local.signal,
    restartTimer,
    close() {
      clearTimeout(timer);
      outer?.removeEventListener('abort', forwardAbort);
      options.router.unregister(turnId);
      local.abort();
    },
  };
}
