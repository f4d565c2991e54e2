import { randomUUID } from 'node:crypto';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { contentHash, createSqliteMemoryStore, MemoryService, type MemoryStore } from '@nexus/memory';
import { seededRandom } from '@nexus/testkit';
import { startScriptedModelServer } from '@nexus/testkit/llm';
import { expect, it } from 'vitest';
import { createAgent } from '../../agent/agent.ts';
import { createNexusCore } from '../../nexus-core.ts';
import { createSqliteSessionStore } from '../../session-store/sqlite-session-store.ts';
import { createRecordingChannel, testIntent } from '../../testing/recording-channel.ts';
import type { TurnReport } from '../../turn/turn-types.ts';

const PERSON = 'test:person-1';
const MEMORIES = 10_000;
/** A turn reads what it uses: context candidates, standing facts, a summary; never a listing. */
const MAX_ROWS_PER_TURN = 200;

/** Counts every memory a store call hands back (a list's rows, a search's hits, a get's one). */
function countingStore(store: MemoryStore) {
  const reads: Record<string, number> = {};
  const counted = new Proxy(store, {
    get(target, key) {
      const value = Reflect.get(target, key);
      if (typeof value !== 'function') return value;
      return async (...args: unknown[]) => {
        const result = await value.apply(target, args);
        const rows = Array.isArray(result) ? result.length : result && typeof result === 'object' ? 1 : 0;
        if (rows > 0 && key !== 'stats') reads[String(key)] = (reads[String(key)] ?? 0) + rows;
        return result;
      };
    },
  });
  return { store: counted, reads, total: () => Object.values(reads).reduce((sum, rows) => sum + rows, 0) };
}

// Not a timed test: it counts rows, so a turn that lists a person's whole memory fails here on any machine.
it(`reads at most ${MAX_ROWS_PER_TURN} memory rows in one turn of a person with ${MEMORIES} memories`, async () => {
  const random = seededRandom(5);
  const words = 'tea jazz trains garden hiking sushi chess poetry kyoto lisbon'.split(' ');
  const word = () => words[Math.floor(random() * words.length)] ?? 'tea';
  const categories = ['preference', 'fact', 'pattern', 'event'] as const;
  const sqlite = createSqliteMemoryStore({ path: ':memory:' });
  const now = Date.now();
  const items = Array.from({ length: MEMORIES }, (_, index) => {
    const content = `Likes ${word()} and ${word()} (${index})`;
    const at = now - Math.floor(random() * 365 * 86_400_000);
    return {
      memory: {
        id: randomUUID(),
        userId: PERSON,
        scope: 'user' as const,
        content,
        category: categories[index % 4]!,
        source: index % 2 === 0 ? ('user_explicit' as const) : ('inferred' as const),
        createdAt: at,
        updatedAt: at,
        hash: contentHash(content),
        metadata: {},
      },
    };
  });
  await sqlite.insertMany({ items });
  const counting = countingStore(sqlite);
  const model = await startScriptedModelServer();
  const reports: TurnReport[] = [];
  const channel = createRecordingChannel();
  const core = createNexusCore({
    sessionStore: createSqliteSessionStore({ path: ':memory:' }),
    agent: createAgent({
      model: createOpenAICompatible({ baseURL: model.baseUrl, name: 'scripted' })('scripted-model'),
    }),
    memory: { port: new MemoryService({ store: counting.store }) },
    onTurnFinished: (report) => reports.push(report),
  });
  core.registerChannel(channel.adapter);
  try {
    await core.intake({
      ...testIntent({ id: 'turn-1', text: 'any tips for tea and jazz tonight?' }),
      userId: PERSON,
    });
    await core.whenIdle();
    expect(reports).toMatchObject([{ outcome: 'ok' }]);
    // The turn did use the memory: context hits and standing facts both reached the prompt.
    expect(reports[0]?.memory?.scopesFound).toEqual(expect.arrayContaining(['user', 'profile']));
    expect(counting.total()).toBeLessThanOrEqual(MAX_ROWS_PER_TURN);
    expect(counting.reads.standing).toBeGreaterThan(0);
  } finally {
    await core.shutdown({ deadlineMs: 1_000 });
    await model.close();
    await sqlite.close();
  }
});
