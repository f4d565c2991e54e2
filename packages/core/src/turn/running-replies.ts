import type { CancelSink } from '@nexus/protocol';

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
  start(key: { channel: string; conversationId: string; replyId: string; intentId: string }): RunningReply;
  cancel: CancelSink;
  size(): number;
}

export function createRunningReplies(): RunningReplies {
  // Each running reply under two keys: its reply id, and the intent it answers (Stop before the
  // first words, when the client knows no reply id yet).
  const running = new Map<string, AbortController>();
  const keyOf = (channel: string, conversationId: string, id: string) =>
    `${channel}\u0000${conversationId}\u0000${id}`;
  return {
    start(request) {
      const keys = [
        keyOf(request.channel, request.conversationId, `reply:${request.replyId}`),
        keyOf(request.channel, request.conversationId, `intent:${request.intentId}`),
      ];
      const controller = new AbortController();
      for (const key of keys) running.set(key, controller);
      return {
        stopSignal: controller.signal,
        finished: () => {
          for (const key of keys) if (running.get(key) === controller) running.delete(key);
        },
      };
    },
    cancel(request) {
      const id = request.replyId !== undefined ? `reply:${request.replyId}` : `intent:${request.intentId}`;
      const controller = running.get(keyOf(request.channel, request.conversationId, id));
      if (controller === undefined || controller.signal.aborted) return 'not_running';
      controller.abort(new ReplyStoppedByPerson(request.shownChars));
      return 'stopping';
    },
    size: () => new Set(running.values()).size,
  };
}
