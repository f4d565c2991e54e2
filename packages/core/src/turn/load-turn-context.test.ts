import { sharedTokenCounter } from '@nexus/limits-kit';
import { intentSchema } from '@nexus/protocol';
import { describe, expect, it } from 'vitest';
import { resolveTurnMemory } from '../memory/context/turn-memory.ts';
import { createInMemoryMemory } from '../memory/testing/in-memory-memory.ts';
import type { StoredTurn } from '../session-store/session-store.ts';
import { createSqliteSessionStore } from '../session-store/sqlite-session-store.ts';
import { createRecordingLogger, testIntent } from '../testing/recording-channel.ts';
import { loadTurnContext } from './load-turn-context.ts';
import { createReplyStream } from './reply-stream.ts';

const intent = intentSchema.parse(testIntent({ id: 'm3', text: 'any marathon tips?' }));
const conversationKey = 'test:conversation-1';

function stored(index: number): StoredTurn {
  return {
    conversationKey,
    channel: 'test',
    userId: intent.userId,
    intentId: `m${index}`,
    userText: `question ${index}`,
    replyText: `answer ${index}`,
    outcome: 'ok',
    createdAt: Date.now() - 60_000 + index,
  };
}

async function setUp(memory?: ReturnType<typeof resolveTurnMemory>) {
  const sessionStore = createSqliteSessionStore({ path: ':memory:' });
  for (const index of [1, 2]) await sessionStore.appendTurn(stored(index));
  return {
    sessionStore,
    historyMaxTurns: 50,
    tokenCounter: Promise.resolve(sharedTokenCounter()),
    ...(memory ? { memory } : {}),
    now: Date.now,
    shutdownSignal: new AbortController().signal,
  };
}

describe('loadTurnContext', () => {
  it('reads the conversation’s turns and the token counter; no memory step without memory', async () => {
    const dependencies = await setUp();
    const context = await loadTurnContext({
      intent,
      conversationKey,
      revision: undefined,
      events: createReplyStream(),
      dependencies,
      logger: createRecordingLogger(),
    });
    expect(context.turns.map((turn) => turn.intentId)).toEqual(['m1', 'm2']);
    expect(context.tokenCounter.count('hello world')).toBeGreaterThan(0);
    expect(context).not.toHaveProperty('memoryStep');
  });

  it('leaves out the exchange an edit re-answers, keeping the turns before it', async () => {
    const dependencies = await setUp();
    const context = await loadTurnContext({
      intent,
      conversationKey,
      revision: { targetIntentId: 'm2', mode: 'rerun' },
      events: createReplyStream(),
      dependencies,
      logger: createRecordingLogger(),
    });
    expect(context.turns.map((turn) => turn.intentId)).toEqual(['m1']);
  });

  it('runs the memory step: what is known of the person goes into the block, with its report', async () => {
    const memory = createInMemoryMemory();
    await memory.port.add({
      userId: intent.userId,
      content: 'Is training for the Lisbon marathon',
      category: 'fact',
      source: 'user_explicit',
    });
    const dependencies = await setUp(resolveTurnMemory({ port: memory.port }));
    const context = await loadTurnContext({
      intent,
      conversationKey,
      revision: undefined,
      events: createReplyStream(),
      dependencies,
      logger: createRecordingLogger(),
    });
    expect(context.memoryStep?.block).toContain('Lisbon marathon');
    expect(context.memoryStep?.report.memoriesUsed).toBeGreaterThan(0);
  });
});
