import { randomUUID } from 'node:crypto';
import type { Agent, AgentPart, AgentRunOptions } from '@nexus/core';
import { MODEL_ERROR_MESSAGES } from '@nexus/core';
import { type JobQueue, type Logger, NexusError, silentLogger } from '@nexus/protocol';
import type { Redis } from 'ioredis';
import {
  AGENT_RUN_JOB,
  type AgentRunPayload,
  agentRunKeys,
  type RunMessage,
  type WorkerMessage,
} from './agent-run-protocol.ts';
import { describeTools, executeGatewayTool } from './gateway-tools.ts';
import { createMessageQueue } from './message-queue.ts';
import type { MessageRouter } from './message-router.ts';
import { sendToInbox } from './stream-inbox.ts';

export interface RemoteAgentOptions {
  queue: JobQueue;
  /** Routes this gateway's inbox messages by turn id. */
  router: MessageRouter<RunMessage>;
  inboxKey: string;
  commands: Redis;
  prefix: string;
  /** Whether the workers have a model (same configuration as this gateway). */
  configured: boolean;
  /** How long one turn may take from enqueue to its last event, retries on other workers included. */
  timeoutMs: number;
  /** Runs of one job (the first included) before it is parked. Default 3. */
  attempts?: number;
  generateId?: () => string;
  now?: () => number;
  logger?: Logger;
}

/**
 * The agent as the gateway role sees it: each run becomes an `agent.run` job, and the reply
 * streams back from whichever worker runs it. When a worker dies mid-run and the job is retried
 * elsewhere, the newer run takes over: text already shown is not repeated (its deltas are
 * skipped up to the length already emitted), and `finish` carries the whole reply, which is what
 * core stores and what channels render last. Tool calls are executed here, where core built the
 * tools for the person speaking.
 */
export function createRemoteAgent(options: RemoteAgentOptions): Agent {
  const logger = options.logger ?? silentLogger;
  const generateId = options.generateId ?? randomUUID;
  const now = options.now ?? Date.now;
  const keys = agentRunKeys(options.prefix);

  const send = (to: string, message: WorkerMessage) =>
    sendToInbox(options.commands, to, message).catch((error: unknown) =>
      logger.warn({ err: error }, 'could not reach a worker inbox'),
    );

  return {
    configured: options.configured,
    async *run(runOptions: AgentRunOptions): AsyncGenerator<AgentPart> {
      const turnId = generateId();
      const turnLogger = logger.child({ turnId });
      const messages = createMessageQueue<RunMessage>();
      const local = new AbortController();
      const outer = runOptions.abortSignal;
      const forwardAbort = () => local.abort(outer?.reason);
      if (outer?.aborted) forwardAbort();
      outer?.addEventListener('abort', forwardAbort, { once: true });
      const timer = setTimeout(() => {
        local.abort(
          new NexusError({
            code: 'model_timeout',
            message: MODEL_ERROR_MESSAGES.model_timeout,
            retryable: true,
          }),
        );
      }, options.timeoutMs);
      options.router.register(turnId, (message) => messages.push(message));

      let current: { runId: string; seq: number; replyTo: string } | undefined;
      let ended = false;
      try {
        const payload: AgentRunPayload = {
          v: 1,
          turnId,
          replyTo: options.inboxKey,
          deadlineAt: now() + options.timeoutMs,
          ...(runOptions.system !== undefined ? { system: runOptions.system } : {}),
          ...(runOptions.systemContext ? { systemContext: runOptions.systemContext } : {}),
          history: runOptions.history as unknown as AgentRunPayload['history'],
          userText: runOptions.userText,
          ...(runOptions.userDocuments?.length ? { userDocuments: [...runOptions.userDocuments] } : {}),
          ...(runOptions.userImages?.length
            ? {
                userImages: runOptions.userImages.map((image) => ({
                  base64: Buffer.from(image.bytes).toString('base64'),
                  mediaType: image.mediaType,
                })),
              }
            : {}),
          ...(runOptions.userId !== undefined ? { userId: runOptions.userId } : {}),
          tools: await describeTools(runOptions.tools),
          ...(runOptions.budget
            ? {
                budget: {
                  id: runOptions.budget.id,
                  channel: runOptions.budget.channel,
                  ...runOptions.budget.limits,
                },
              }
            : {}),
        };
        await options.queue.enqueue({
          name: AGENT_RUN_JOB,
          jobId: turnId,
          payload,
          attempts: options.attempts ?? 3,
          backoff: { type: 'fixed', delayMs: 0 },
          abortSignal: local.signal,
        });

        let runText = '';
        let emittedLength = 0;
        // Like the text: a run restarted on another worker repeats its media; each is sent once.
        let runMedia = 0;
        let emittedMedia = 0;
        for (;;) {
          const message = await messages.next(local.signal);
          if (message.kind === 'start') {
            if (current?.runId === message.runId) continue;
            if (current) {
              turnLogger.warn(
                { previousRunId: current.runId, runId: message.runId, attempt: message.attempt },
                'agent run restarted on another worker; following the new run',
              );
              void send(current.replyTo, { runId: current.runId, kind: 'cancel' });
            }
            current = { runId: message.runId, seq: message.seq, replyTo: message.replyTo };
            runText = '';
            runMedia = 0;
            continue;
          }
          // A superseded run, or a message this turn already applied.
          if (!current || message.runId !== current.runId || message.seq <= current.seq) continue;
          current.seq = message.seq;
          if (message.kind === 'delta') {
            runText += message.text;
            if (runText.length > emittedLength) {
              yield { type: 'text-delta', text: runText.slice(emittedLength) };
              emittedLength = runText.length;
            }
          } else if (message.kind === 'media') {
            runMedia++;
            if (runMedia > emittedMedia) {
              emittedMedia = runMedia;
              yield { type: 'media', media: message.media };
            }
          } else if (message.kind === 'finish') {
            ended = true;
            const finish = {
              type: 'finish',
              text: message.text,
              ...(message.usage ? { usage: message.usage } : {}),
              ...(message.stopped ? { stopped: message.stopped } : {}),
            };
            yield finish as AgentPart;
            return;
          } else if (message.kind === 'error') {
            ended = true;
            throw new NexusError({
              code: message.code,
              message: message.message,
              retryable: message.retryable,
            });
          } else {
            const replyTo = current.replyTo;
            void executeGatewayTool({
              tools: runOptions.tools,
              runId: message.runId,
              callId: message.callId,
              name: message.name,
              input: message.input,
              abortSignal: local.signal,
            }).then((outcome) => send(replyTo, outcome));
          }
        }
      } finally {
        clearTimeout(timer);
        outer?.removeEventListener('abort', forwardAbort);
        options.router.unregister(turnId);
        if (!ended) {
          // Abandoned (shutdown, timeout, consumer gone): stop the worker, and keep a worker that
          // picks the job up later from running it.
          if (current) void send(current.replyTo, { runId: current.runId, kind: 'cancel' });
          options.commands.set(keys.done(turnId), 'abandoned', 'PX', 3_600_000).catch(() => undefined);
        }
        local.abort();
      }
    },
  };
}
