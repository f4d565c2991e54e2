import { intentSchema, type JobQueue, NexusError } from '@nexus/protocol';
import { createSqliteJobQueue } from '@nexus/queue-sqlite';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Agent } from '../agent/agent.ts';
import { resolveTurnMemory } from '../memory/context/turn-memory.ts';
import { MEMORY_EXTRACT_JOB } from '../memory/extraction/memory-extraction-job.ts';
import { createInMemoryMemory } from '../memory/testing/in-memory-memory.ts';
import { createRecordingLogger, testIntent } from '../testing/recording-channel.ts';
import { learnFromTurn } from './learn-from-turn.ts';
import { emptyReply, type TurnSoFar } from './turn-so-far.ts';

const intent = intentSchema.parse(testIntent({ id: 'm1', text: 'I moved to Porto last week' }));
const queues: ReturnType<typeof createSqliteJobQueue>[] = [];
afterEach(async () => {
  await Promise.all(queues.splice(0).map((queue) => queue.close()));
});

function setUp(configured = true) {
  const queue = createSqliteJobQueue({ path: ':memory:', pollIntervalMs: 20 });
  queues.push(queue);
  const memory = resolveTurnMemory({ port: createInMemoryMemory().port, jobQueue: queue, summaryIdleMs: 0 });
  const agent = { configured } as Pick<Agent, 'configured'> as Agent;
  return { queue, dependencies: { memory, agent } };
}

const answered = (overrides: Partial<TurnSoFar> = {}): TurnSoFar => ({
  intent,
  reply: { ...emptyReply('r1'), text: 'Welcome to Porto!' },
  ...overrides,
});

async function jobsAfter(turn: TurnSoFar, configured = true): Promise<number> {
  const { queue, dependencies } = setUp(configured);
  await learnFromTurn({
    turn,
    conversationKey: 'test:conversation-1',
    revision: undefined,
    dependencies,
    logger: createRecordingLogger(),
  });
  const counts = await queue.counts({ name: MEMORY_EXTRACT_JOB });
  return counts.waiting + counts.delayed;
}

describe('learnFromTurn', () => {
  it('enqueues extraction for an answer the model gave to what the person wrote', async () => {
    expect(await jobsAfter(answered())).toBe(1);
  });

  it('learns nothing from a failure, a refusal, unusable attachments, an empty message or no model', async () => {
    const failure = new NexusError({ code: 'model_rejected', message: 'no', retryable: false });
    const media = { text: '', heard: [], images: [], documents: [], problems: ['x'], problemsOnly: true };
    expect(await jobsAfter(answered({ failure }))).toBe(0);
    expect(
      await jobsAfter(answered({ reply: { ...emptyReply('r1'), budgetExhausted: 'daily_tokens' } })),
    ).toBe(0);
    expect(await jobsAfter(answered({ media }))).toBe(0);
    expect(await jobsAfter(answered({ intent: { ...intent, text: '   ' } }))).toBe(0);
    expect(await jobsAfter(answered(), false)).toBe(0);
  });

  it('gives up on a queue that hangs once 5 s have passed, logged, and the turn goes on', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      // A queue that never answers: its enqueue ends only when the caller's signal aborts.
      const hung = {
        enqueue: ({ abortSignal }: { abortSignal: AbortSignal }) =>
          new Promise((_resolve, reject) => {
            abortSignal.addEventListener('abort', () => reject(abortSignal.reason), { once: true });
          }),
      } as unknown as JobQueue;
      const memory = resolveTurnMemory({
        port: createInMemoryMemory().port,
        jobQueue: hung,
        summaryIdleMs: 0,
      });
      const logger = createRecordingLogger();
      let settled = false;
      const learning = learnFromTurn({
        turn: answered(),
        conversationKey: 'test:conversation-1',
        revision: undefined,
        dependencies: { memory, agent: { configured: true } as Agent },
        logger,
      }).then(() => {
        settled = true;
      });
      await vi.advanceTimersByTimeAsync(4_999);
      expect(settled).toBe(false);
      await vi.advanceTimersByTimeAsync(1);
      await learning;
      const failure = logger.lines.find(
        (line) => line.message === 'could not enqueue memory jobs for this turn',
      );
      expect(failure?.object).toMatchObject({ err: { name: 'TimeoutError' } });
    } finally {
      vi.useRealTimers();
    }
  });
});
