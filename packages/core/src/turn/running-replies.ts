import type { CancelSink, ReplyCancelRequest } from '@nexus/protocol';

/** Why a reply's model call was aborted: the person pressed Stop (not a failure). */
export class ReplyStoppedByPerson extends Error {
  readonly code = 'stopped';
  readonly retryable = false;
  /** How much of the reply the person had been shown, when their client said so. */
  readonly shownChars: number | undefined;

  constructor(shownChars: number | undefined) {
    super('The person stopped the reply.');
    this.name = 'ReplyStoppedByPerson';
    this.shownChars = shownChars;
  }
}

/** One reply being generated, as Stop finds it. */
export interface RunningReply {
  /** Aborted (with a `ReplyStoppedByPerson` reason) when the person presses Stop. */
  readonly stopSignal: AbortSignal;
  /** Call once generation ended, stopped or not: a later Stop finds nothing to stop. */
  finished(): void;
}

/**
 * The replies being generated right now, by channel, conversation and reply id, so a Stop from a
 * channel reaches the turn writing that reply. Only generation is registered: once `reply.end`
 * went out there is nothing left to stop.
 */
export interface RunningReplies {
  start(key: Omit<ReplyCancelRequest, 'shownChars'>): RunningReply;
  cancel: CancelSink;
  size(): number;
}

export function createRunningReplies(): RunningReplies {
  const running = new Map<string, AbortController>();
  const keyOf = (request: Omit<ReplyCancelRequest, 'shownChars'>) =>
    `${request.channel}\u0000${request.conversationId}\u0000${request.replyId}`;
  return {
    start(request) {
      const key = keyOf(request);
      const controller = new AbortController();
      running.set(key, controller);
      return {
        stopSignal: controller.signal,
        finished: () => {
          if (running.get(key) === controller) running.delete(key);
        },
      };
    },
    cancel(request) {
      const key = keyOf(request);
      const controller = running.get(key);
      if (controller === undefined || controller.signal.aborted) return 'not_running';
      running.delete(key);
      controller.abort(new ReplyStoppedByPerson(request.shownChars));
      return 'stopping';
    },
    size: () => running.size,
  };
}
