import type { AgentPart } from '@nexus/core';
import { type Logger, NexusError } from '@nexus/protocol';
import type { ToolSet } from 'ai';
import { imageRef, type RunMessage, type WorkerMessage } from './agent-run-protocol.ts';
import { executeGatewayTool } from './gateway-tools.ts';

export interface FollowedStep {
  parts: AgentPart[];
  finished: boolean;
  error?: NexusError;
}

export interface RunFollower {
  /**
   * What one run message adds to the turn: `finished` once the turn has its last part, `error`
   * when the run ended with one (a model failure is the run's answer).
   */
  apply(message: RunMessage): FollowedStep;
  /** The run being followed, to cancel when the turn is abandoned. */
  readonly current: { runId: string; replyTo: string } | undefined;
  /** A message arrived from the run followed (or a newer one) since the last call. */
  takeProgress(): boolean;
}

/**
 * Turns the run messages of one turn into agent parts. When a run is restarted (a worker died,
 * the gateway sent the run again) the newest run is followed: text already shown is not repeated
 * (its deltas are skipped up to the length already emitted), media are sent once, and `finish`
 * carries the whole reply. Tool calls are executed here, where core built the tools for the
 * person speaking, and a run's requests for the turn's images are answered from here.
 */
export function createRunFollower(options: {
  tools: ToolSet | undefined;
  /** The turn's images: a run of this turn may ask for their bytes, and only for these. */
  images?: readonly { bytes: Uint8Array; mediaType: string }[];
  send: (to: string, message: WorkerMessage) => void;
  abortSignal: AbortSignal;
  logger: Logger;
}): RunFollower {
  let current: { runId: string; seq: number; replyTo: string } | undefined;
  let runText = '';
  let emittedLength = 0;
  let runMedia = 0;
  let emittedMedia = 0;
  let progress = false;

  function follow(message: Extract<RunMessage, { kind: 'start' }>): void {
    if (current?.runId === message.runId) return;
    if (current) {
      options.logger.warn(
        { previousRunId: current.runId, runId: message.runId, attempt: message.attempt },
        'agent run restarted; following the new run',
      );
      options.send(current.replyTo, { runId: current.runId, kind: 'cancel' });
    }
    current = { runId: message.runId, seq: message.seq, replyTo: message.replyTo };
    runText = '';
    runMedia = 0;
  }

  function apply(message: RunMessage): FollowedStep {
    const none = { parts: [], finished: false };
    if (message.kind === 'start') {
      progress = true;
      follow(message);
      return none;
    }
    // A superseded run, or a message this turn already applied.
    if (!current || message.runId !== current.runId || message.seq <= current.seq) return none;
    progress = true;
    current.seq = message.seq;
    switch (message.kind) {
      case 'delta': {
        runText += message.text;
        if (runText.length <= emittedLength) return none;
        const text = runText.slice(emittedLength);
        emittedLength = runText.length;
        return { parts: [{ type: 'text-delta', text }], finished: false };
      }
      case 'media':
        runMedia++;
        if (runMedia <= emittedMedia) return none;
        emittedMedia = runMedia;
        return { parts: [{ type: 'media', media: message.media }], finished: false };
      case 'finish': {
        const finish = {
          type: 'finish',
          text: message.text,
          ...(message.usage ? { usage: message.usage } : {}),
          ...(message.stopped ? { stopped: message.stopped } : {}),
        };
        return { parts: [finish as AgentPart], finished: true };
      }
      case 'error':
        return {
          parts: [],
          finished: true,
          error: new NexusError({
            code: message.code,
            message: message.message,
            retryable: message.retryable,
          }),
        };
      case 'media-request': {
        const index = (options.images ?? []).findIndex((_, place) => imageRef(place) === message.ref);
        const image = options.images?.[index];
        options.send(
          current.replyTo,
          image
            ? {
                runId: message.runId,
                kind: 'media-bytes',
                ref: message.ref,
                base64: Buffer.from(
                  image.bytes.buffer,
                  image.bytes.byteOffset,
                  image.bytes.byteLength,
                ).toString('base64'),
                mediaType: image.mediaType,
              }
            : {
                runId: message.runId,
                kind: 'media-error',
                ref: message.ref,
                message: 'No such image in this turn.',
              },
        );
        return none;
      }
      default: {
        const replyTo = current.replyTo;
        void executeGatewayTool({
          tools: options.tools,
          runId: message.runId,
          callId: message.callId,
          name: message.name,
          input: message.input,
          abortSignal: options.abortSignal,
        }).then((outcome) => options.send(replyTo, outcome));
        return none;
      }
    }
  }

  return {
    apply,
    get current() {
      return current;
    },
    takeProgress() {
      const had = progress;
      progress = false;
      return had;
    },
  };
}
