import { randomUUID } from 'node:crypto';
import {
  type Agent,
  type AgentPart,
  createTurnBudget,
  DEFAULT_TURN_LIMITS,
  type TurnBudget,
  type TurnLimits,
  toModelError,
} from '@nexus/core';
import {
  type JobProcessor,
  type JobQueue,
  type Logger,
  NexusError,
  PermanentJobError,
  silentLogger,
} from '@nexus/protocol';
import type { Redis } from 'ioredis';
import {
  AGENT_RUN_JOB,
  type AgentRunPayload,
  agentRunKeys,
  agentRunPayloadSchema,
  type RunMessage,
  type WorkerMessage,
} from './agent-run-protocol.ts';
import type { MessageRouter } from './message-router.ts';
import { type BudgetObserver, observedTurnBudget } from './observed-turn-budget.ts';
import { createProxyTools } from './proxy-tools.ts';
import { createRedisTurnBudget } from './redis-turn-budget.ts';
import { createRunImageRequests } from './run-image-requests.ts';
import { sendToInbox } from './stream-inbox.ts';

export interface AgentRunReport {
  turnId: string;
  attempt: number;
  outcome: 'ok' | 'error' | 'cancelled' | 'skipped' | 'handed-back';
  durationMs: number;
}

export interface AgentRunWorkerOptions {
  queue: JobQueue;
  agent: Agent;
  commands: Redis;
  prefix: string;
  /** This worker's inbox (tool results, cancellations), routed by run id. */
  inboxKey: string;
  router: MessageRouter<WorkerMessage>;
  concurrency: number;
  /** This worker's own caps per message (default DEFAULT_TURN_LIMITS): the lower of these and the gateway's apply. */
  turnLimits?: TurnLimits;
  /** Sees every model request this worker makes, and its tokens. */
  budgetObserver?: BudgetObserver;
  generateId?: () => string;
  now?: () => number;
  logger?: Logger;
  /** A run begins (after the checks that may skip it); `onRun` follows when it ends. */
  onRunStart?: () => void;
  onRun?: (report: AgentRunReport) => void;
}

type RunBody = RunMessage extends infer Message
  ? Message extends RunMessage
    ? Omit<Message, 'turnId' | 'runId' | 'seq'>
    : never
  : never;

/**
 * Takes `agent.run` jobs and runs the agent, streaming every part into the gateway's inbox as it
 * comes. A model failure is a reply (an `error` message), not a job failure: the job is retried
 * only when this process dies or shuts down mid-run, and then the gateway follows the new run.
 */
export function startAgentRunWorker(options: AgentRunWorkerOptions): JobProcessor {
  const logger = (options.logger ?? silentLogger).child({ component: 'agent-run-worker' });
  const generateId = options.generateId ?? randomUUID;
  const now = options.now ?? Date.now;
  const keys = agentRunKeys(options.prefix);

  return options.queue.process({
    name: AGENT_RUN_JOB,
    concurrency: options.concurrency,
    handler: async (job) => {
      const parsed = agentRunPayloadSchema.safeParse(job.payload);
      if (!parsed.success) {
        throw new PermanentJobError({
          code: 'invalid_intent',
          message: `agent.run: invalid payload: ${parsed.error.issues[0]?.message ?? 'unknown shape'}`,
        });
      }
      const payload = parsed.data;
      const startedAt = now();
      const report = (outcome: AgentRunReport['outcome']) =>
        options.onRun?.({
          turnId: payload.turnId,
          attempt: job.attempt,
          outcome,
          durationMs: now() - startedAt,
        });
      if (
        startedAt > payload.deadlineAt ||
        (await options.commands.exists(keys.done(payload.turnId))) === 1
      ) {
        report('skipped');
        return;
      }

      options.onRunStart?.();
      const runId = generateId();
      const runLogger = logger.child({ turnId: payload.turnId, runId, attempt: job.attempt });
      let seq = 0;
      // ioredis keeps the order of commands on one connection, so the stream order is `seq` order.
      const publish = (body: RunBody) =>
        sendToInbox(options.commands, payload.replyTo, {
          turnId: payload.turnId,
          runId,
          seq: seq++,
          ...body,
        });

      const cancelled = new AbortController();
      const pendingCalls = new Map<
        string,
        { resolve: (value: unknown) => void; reject: (error: Error) => void }
      >();
      const images = createRunImageRequests((ref) => publish({ kind: 'media-request', ref }));
      options.router.register(runId, (message) => {
        if (message.kind === 'cancel') {
          cancelled.abort(new NexusError({ code: 'internal', message: 'The gateway cancelled this run.' }));
          return;
        }
        if (message.kind === 'media-bytes' || message.kind === 'media-error') {
          images.answer(message);
          return;
        }
        const pending = pendingCalls.get(message.callId);
        pendingCalls.delete(message.callId);
        if (message.kind === 'tool-result') pending?.resolve(message.output);
        else pending?.reject(new Error(message.message));
      });
      const signal = AbortSignal.any([job.abortSignal, cancelled.signal]);

      try {
        await publish({ kind: 'start', attempt: job.attempt, replyTo: options.inboxKey });
        const tools = createProxyTools(
          payload.tools,
          async ({ callId, name, input, abortSignal }) => {
            const answered = new Promise<unknown>((resolve, reject) => {
              pendingCalls.set(callId, { resolve, reject });
              abortSignal.addEventListener('abort', () => reject(abortSignal.reason), { once: true });
            });
            await publish({ kind: 'tool-call', callId, name, input });
            return answered;
          },
          signal,
        );
        const userImages = await images.fetch(payload, signal, payload.deadlineAt, now);
        const budget = runBudget(payload, options);
        let finish: Extract<AgentPart, { type: 'finish' }> | undefined;
        for await (const part of options.agent.run({
          budget,
          ...(payload.system !== undefined ? { system: payload.system } : {}),
          ...(payload.systemContext ? { systemContext: payload.systemContext } : {}),
          history: payload.history as never,
          userText: payload.userText,
          ...(payload.userDocuments ? { userDocuments: payload.userDocuments } : {}),
          ...(userImages.length > 0 ? { userImages } : {}),
          ...(tools ? { tools } : {}),
          abortSignal: signal,
        } as Parameters<Agent['run']>[0])) {
          if (part.type === 'text-delta') await publish({ kind: 'delta', text: part.text });
          else if (part.type === 'media') await publish({ kind: 'media', media: part.media });
          else if (part.type === 'finish') finish = part;
        }
        const usage = (finish as { usage?: Record<string, unknown> } | undefined)?.usage;
        if (finish?.stopped) options.budgetObserver?.onStopped(budget.channel, finish.stopped);
        await publish({
          kind: 'finish',
          text: finish?.text ?? '',
          ...(usage ? { usage } : {}),
          ...(finish?.stopped ? { stopped: finish.stopped } : {}),
        });
        await options.commands.set(keys.done(payload.turnId), runId, 'PX', 3_600_000);
        report('ok');
      } catch (error) {
        if (job.abortSignal.aborted) {
          // Shutdown or a lost lease: the job goes back to the queue and another run takes over.
          runLogger.warn({ reason: String(job.abortSignal.reason) }, 'agent run handed back');
          report('handed-back');
          throw error;
        }
        if (cancelled.signal.aborted) {
          report('cancelled');
          return;
        }
        const failure = toModelError(error, { shuttingDown: false });
        runLogger.warn({ code: failure.code, err: error }, 'agent run failed');
        await publish({
          kind: 'error',
          code: failure.code,
          message: failure.message,
          retryable: failure.retryable,
        });
        await options.commands.set(keys.done(payload.turnId), runId, 'PX', 3_600_000);
        report('error');
      } finally {
        options.router.unregister(runId);
        for (const pending of pendingCalls.values()) pending.reject(new Error('The run ended.'));
        images.close();
      }
    },
  });
}

/**
 * The budget a run draws from: the message's shared counters in Redis when the gateway sent them
 * (subagents of the message on any worker share them), else this run's own, under this worker's caps.
 */
function runBudget(payload: AgentRunPayload, options: AgentRunWorkerOptions): TurnBudget {
  const own = options.turnLimits ?? DEFAULT_TURN_LIMITS;
  const sent = payload.budget;
  const budget = sent
    ? createRedisTurnBudget({
        commands: options.commands,
        prefix: options.prefix,
        limits: {
          maxModelCalls: Math.min(sent.maxModelCalls, own.maxModelCalls),
          maxOutputTokens: Math.min(sent.maxOutputTokens, own.maxOutputTokens),
          maxInputTokens: Math.min(sent.maxInputTokens ?? own.maxInputTokens, own.maxInputTokens),
        },
        scope: { id: sent.id, channel: sent.channel },
      })
    : createTurnBudget(own, { id: payload.turnId, channel: 'unknown' });
  return options.budgetObserver ? observedTurnBudget(budget, options.budgetObserver) : budget;
}
