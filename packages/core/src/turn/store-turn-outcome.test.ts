import { sharedTokenCounter } from '@nexus/limits-kit';
import { intentSchema, NexusError } from '@nexus/protocol';
import { describe, expect, it } from 'vitest';
import type { Agent } from '../agent/agent.ts';
import { createSqliteSessionStore } from '../session-store/sqlite-session-store.ts';
import { createRecordingLogger, testIntent } from '../testing/recording-channel.ts';
import { storeTurnOutcome } from './store-turn-outcome.ts';
import { emptyReply, type TurnSoFar } from './turn-so-far.ts';

const intent = intentSchema.parse(testIntent({ id: 'm1', text: 'hello there' }));
const conversationKey = 'test:conversation-1';
const agent = { configured: true } as Pick<Agent, 'configured'> as Agent;

async function inboxWithIntent() {
  const sessionStore = createSqliteSessionStore({ path: ':memory:' });
  await sessionStore.admitIntent({
    channel: 'test',
    intentId: 'm1',
    conversationKey,
    kind: 'turn',
    intent,
    decided: intent,
    acceptedAt: 1,
  });
  return sessionStore;
}

function answered(overrides: Partial<TurnSoFar> = {}): TurnSoFar {
  return {
    intent,
    reply: { ...emptyReply('r1'), text: 'Here is the chart.', mediaNames: ['chart.png'] },
    tokenCounter: sharedTokenCounter(),
    ...overrides,
  };
}

function store(sessionStore: Awaited<ReturnType<typeof inboxWithIntent>>, turn: TurnSoFar, extra = {}) {
  const logger = createRecordingLogger();
  return {
    logger,
    done: storeTurnOutcome({
      turn,
      conversationKey,
      revision: undefined,
      finishedAt: 5000,
      abandoned: false,
      dependencies: { sessionStore, agent },
      logger,
      ...extra,
    }),
  };
}

describe('storeTurnOutcome', () => {
  it('stores the exchange with the names of the files sent, and finishes its inbox entry', async () => {
    const sessionStore = await inboxWithIntent();
    await store(sessionStore, answered()).done;
    const [turn] = await sessionStore.history({ conversationKey, limit: 10 });
    expect(turn).toMatchObject({
      intentId: 'm1',
      userText: 'hello there',
      replyText: 'Here is the chart.\n[sent: chart.png]',
      outcome: 'ok',
      createdAt: 5000,
    });
    expect(turn?.tokenCount).toBeGreaterThan(0);
    expect(await sessionStore.unfinishedIntents()).toEqual([]);
  });

  it('leaves a turn stopped by shutdown, or abandoned at the hard stop, in the inbox', async () => {
    for (const [turn, abandoned] of [
      [
        answered({ failure: new NexusError({ code: 'shutting_down', message: 'bye', retryable: true }) }),
        false,
      ],
      [answered(), true],
    ] as const) {
      const sessionStore = await inboxWithIntent();
      const { done, logger } = store(sessionStore, turn, { abandoned });
      await done;
      expect(await sessionStore.history({ conversationKey, limit: 10 })).toEqual([]);
      expect(await sessionStore.unfinishedIntents()).toHaveLength(1);
      expect(logger.lines.map((line) => line.message)).toContain('turn left in the inbox for the next start');
    }
  });

  it('after a retryable failure finishes only the inbox entry, so the person’s resend is taken', async () => {
    const sessionStore = await inboxWithIntent();
    const failure = new NexusError({ code: 'model_unavailable', message: 'try again', retryable: true });
    await store(sessionStore, answered({ failure })).done;
    expect(await sessionStore.history({ conversationKey, limit: 10 })).toEqual([]);
    expect(await sessionStore.hasIntent({ channel: 'test', intentId: 'm1' })).toBe(false);
  });

  it('stores a turn that failed for good as an error, with what was said before the failure', async () => {
    const sessionStore = await inboxWithIntent();
    const failure = new NexusError({ code: 'model_rejected', message: 'no', retryable: false });
    await store(sessionStore, answered({ failure, reply: { ...emptyReply('r1'), text: 'Half an ans' } }))
      .done;
    expect(await sessionStore.history({ conversationKey, limit: 10 })).toMatchObject([
      { outcome: 'error', replyText: 'Half an ans' },
    ]);
  });

  it('logs a store that fails instead of throwing', async () => {
    const sessionStore = await inboxWithIntent();
    await sessionStore.close();
    const { done, logger } = store(sessionStore, answered());
    await expect(done).resolves.toBeUndefined();
    expect(logger.lines.at(-1)).toMatchObject({ level: 'error', message: 'could not store the turn' });
  });
});
