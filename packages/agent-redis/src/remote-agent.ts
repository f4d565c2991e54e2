import { randomUUID } from 'node:crypto';
import type { Agent, AgentPart, AgentRunOptions } from '@nexus/core';
import { type JobQueue, type Logger, silentLogger } from '@nexus/protocol';
import { enqueueWithRetry } from '@nexus/queue-kit';
import type { Redis } from 'ioredis';
import { AGENT_RUN_JOB, agentRunKeys, type RunMessage, type WorkerMessage } from './agent-run-protocol.ts';
import { buildAgentRunPayload } from './build-agent-run-payload.ts';
import type { MessageRouter } from './message-router.ts';
import { openTurn } from './open-turn.ts';
import { createRunFollower } from './run-follower.ts';
import { watchRun } from './run-watch.ts';
import { sendToInbox } from './stream-inbox.ts';
import { untilDeadline } from './until-deadline.ts';

export interface RemoteAgentOptions {
  queue: JobQueue;
  /** Routes this gateway's inbox messages by turn id. */
  router: MessageRouter<RunMessage>;
  inboxKey: string;
  /** Resolves once the reply inbox exists on Redis (it may be opened while Redis is down). */
  inboxReady?: Promise<void>;
  commands: Redis;
  prefix: string;
  /** Whether the workers have a model (same configuration as this gateway). */
  configured: boolean;
  /** How long one run may take from enqueue to its last event, retries on other workers included. */
  timeoutMs: number;
  /**
   * How long a turn waits for an unreachable Redis (enqueue retries, a run that cannot be checked)
   * before it ends with a retryable `queue_unavailable` error. Default 3 minutes.
   */
  dispatchDeadlineMs?: number;
  /** A turn quiet this long asks the queue whether its run still exists. Default 5 s. */
  probeEveryMs?: number;
  /** Times a lost run is sent again before the turn fails. Default 3. */
  maxRedispatches?: number;
  /** Runs of one job (the first included) before it is parked. Default 3. */
  attempts?: number;
  generateId?: () => string;
  now?: () => number;
  logger?: Logger;
}

/** What the person is shown while the turn waits for Redis or for a free worker. */
export const WAITING_FOR_WORKER_STATUS = 'Waiting for a worker…';

/**
 * The agent as the gateway role sees it: each run becomes an `agent.run` job, and the reply
 * streams back from whichever worker runs it (see `createRunFollower` for restarted runs). A
 * Redis outage is waited out, never the end of a turn: the enqueue is retried with backoff, and
 * a run lost inside Redis (restarted without persistence, evicted) or whose last messages were
 * lost is sent again (`watchRun`); the reply id core gives the turn keeps it answered once.
 */
export function createRemoteAgent(options: RemoteAgentOptions): Agent {
  const logger = options.logger ?? silentLogger;
  const send = (to: string, message: WorkerMessage) => {
    sendToInbox(options.commands, to, message).catch((error: unknown) =>
      logger.warn({ err: error }, 'could not reach a worker inbox'),
    );
  };
  // Known at once, so a turn that must wait for the inbox (Redis down since start) says so.
  const inbox = { open: options.inboxReady === undefined };
  options.inboxReady?.then(
    () => {
      inbox.open = true;
    },
    () => undefined,
  );
  return {
    configured: options.configured,
    run: (runOptions) => runRemoteTurn(options, runOptions, send, inbox),
  };
}

async function* runRemoteTurn(
  options: RemoteAgentOptions,
  runOptions: AgentRunOptions,
  send: (to: string, message: WorkerMessage) => void,
  inbox: { open: boolean },
): AsyncGenerator<AgentPart> {
  const now = options.now ?? Date.now;
  const turnId = (options.generateId ?? randomUUID)();
  const logger = (options.logger ?? silentLogger).child({ turnId });
  const keys = agentRunKeys(options.prefix);
  const turn = openTurn(options, turnId, runOptions.abortSignal);
  const follower = createRunFollower({
    tools: runOptions.tools,
    ...(runOptions.userImages ? { images: runOptions.userImages } : {}),
    send,
    abortSignal: turn.signal,
    logger,
  });
  const watch = watchRun({
    queue: options.queue,
    turnId,
    dispatchDeadlineMs: options.dispatchDeadlineMs ?? 180_000,
    maxRedispatches: options.maxRedispatches ?? 3,
    now,
    logger,
    onWaiting: () => turn.events.push({ kind: 'status', text: WAITING_FOR_WORKER_STATUS }),
    onFailed: (error) => turn.events.push({ kind: 'failed', error }),
    dispatch: async (jobId, deadlineAt) => {
      if (!inbox.open && options.inboxReady) {
        // Just started, the inbox opens within milliseconds; a second means Redis is not there.
        const slow = setTimeout(() => watch.tellWaiting(), 1000);
        try {
          await untilDeadline(options.inboxReady, deadlineAt, now);
        } finally {
          clearTimeout(slow);
        }
      }
      const payload = await buildAgentRunPayload(runOptions, {
        turnId,
        replyTo: options.inboxKey,
        deadlineAt: now() + options.timeoutMs,
      });
      // A run sent again must run even when an earlier one finished and its reply was lost.
      // Bounded: the command waits for Redis, and the enqueue below has its own deadline.
      if (jobId !== turnId) await untilDeadline(options.commands.del(keys.done(turnId)), now() + 5000, now);
      if (runOptions.userId !== undefined) {
        // The job is deleted once done: this is how forgetting the person still finds the turn.
        const personTurns = keys.personTurns(runOptions.userId);
        options.commands
          .multi()
          .sadd(personTurns, turnId)
          .pexpire(personTurns, 3_600_000)
          .exec()
          .catch((error: unknown) => logger.warn({ err: error }, 'could not record the turn for forgetting'));
      }
      const enqueue = { name: AGENT_RUN_JOB, jobId, payload, attempts: options.attempts ?? 3 };
      await enqueueWithRetry(
        options.queue,
        { ...enqueue, backoff: { type: 'fixed', delayMs: 0 }, abortSignal: turn.signal },
        { deadlineAt, now, logger, onWaiting: () => watch.tellWaiting() },
      );
      turn.restartTimer();
    },
  });
  let ended = false;
  try {
    watch.start();
    const probeEveryMs = options.probeEveryMs ?? 5000;
    for (;;) {
      const event = await turn.events.nextWithin(turn.signal, probeEveryMs);
      if (event === undefined) {
        if (!follower.takeProgress()) watch.probe();
      } else if (event.kind === 'status') {
        yield { type: 'status', text: event.text };
      } else if (event.kind === 'failed') {
        throw event.error;
      } else {
        const step = follower.apply(event.message);
        for (const part of step.parts) yield part;
        if (step.error) {
          ended = true;
          throw step.error;
        }
        if (step.finished) {
          ended = true;
          options.commands.set(keys.done(turnId), 'answered', 'PX', 3_600_000).catch(() => undefined);
          return;
        }
      }
    }
  } finally {
    turn.close();
    if (!ended) {
      // Abandoned (shutdown, timeout, Redis gone too long, consumer gone): stop the worker, and
      // keep a worker that picks the job up later from running it.
      const current = follower.current;
      if (current) send(current.replyTo, { runId: current.runId, kind: 'cancel' });
      options.commands.set(keys.done(turnId), 'abandoned', 'PX', 3_600_000).catch(() => undefined);
    }
  }
}
