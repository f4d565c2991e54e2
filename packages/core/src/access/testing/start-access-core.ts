// Test-only: a real core with access control, the synthetic test channel and the scripted model.
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { approximateTokenCounter } from '@nexus/limits-kit';
import { createTestChannel, type TestChannel } from '@nexus/testkit/channel';
import { type ScriptedModelServer, startScriptedModelServer } from '@nexus/testkit/llm';
import { createAccessControl } from '../../access-control/access-control.ts';
import { createAgent } from '../../agent/agent.ts';
import { createNexusCore, type NexusCore } from '../../nexus-core.ts';
import type { SessionStore } from '../../session-store/session-store.ts';
import { createSqliteSessionStore } from '../../session-store/sqlite-session-store.ts';
import type { AccessMemoryPort } from '../access-decision.ts';
import type { AccessControlOptions } from '../access-options.ts';
import { type AccessStore, createAccessStore } from '../access-store.ts';
import { createConversationNotifier } from '../conversation-notifier.ts';

export interface AccessCore {
  core: NexusCore;
  channel: TestChannel;
  model: ScriptedModelServer;
  store: AccessStore;
  sessionStore: SessionStore;
  /** The access control's clock; move it with `advance`. */
  now(): number;
  advance(ms: number): void;
  close(): Promise<void>;
}

export async function startAccessCore(
  options: Partial<Omit<AccessControlOptions, 'store'>> & { channelName?: string } = {},
): Promise<AccessCore> {
  let clock = Date.parse('2025-06-01T10:00:00Z');
  const now = () => clock;
  const model = await startScriptedModelServer();
  const store = createAccessStore({ path: ':memory:', now });
  const agent = createAgent({
    model: createOpenAICompatible({ baseURL: model.baseUrl, name: 'scripted', apiKey: 'test' })(
      'scripted-model',
    ),
  });
  const sessionStore = createSqliteSessionStore({ path: ':memory:' });
  const notifier = createConversationNotifier();
  const core = createNexusCore({
    sessionStore,
    agent,
    tokenCounter: approximateTokenCounter,
    access: createAccessControl({ notify: notifier.notify, ...options, store, now }),
  });
  const channel = createTestChannel({ name: options.channelName ?? 'test', now });
  core.registerChannel(channel);
  notifier.add(channel);
  await channel.start({ sink: core.intake });
  return {
    core,
    channel,
    model,
    store,
    sessionStore,
    now,
    advance(ms) {
      clock += ms;
    },
    async close() {
      await core.shutdown({ deadlineMs: 1000 });
      await channel.stop();
      store.close();
      await model.close();
    },
  };
}

/** A memory port over a plain array: enough for the commands, which list, delete and reset. */
export function arrayMemory(entries: { userId: string; content: string; id?: string }[]): AccessMemoryPort & {
  entries: { userId: string; content: string; id?: string }[];
} {
  entries.forEach((entry, index) => {
    entry.id ??= `memory-${index + 1}`;
  });
  return {
    entries,
    async list({ userId, limit = 100, offset = 0 }) {
      return entries
        .filter((entry) => entry.userId === userId)
        .slice(offset, offset + limit)
        .map((entry) => ({ id: entry.id ?? '', content: entry.content }));
    },
    async delete({ userId, id }) {
      const index = entries.findIndex((entry) => entry.userId === userId && entry.id === id);
      if (index >= 0) entries.splice(index, 1);
      return { deleted: index >= 0 };
    },
    async reset({ userId }) {
      const before = entries.length;
      entries.splice(0, entries.length, ...entries.filter((entry) => entry.userId !== userId));
      return { deleted: before - entries.length };
    },
  };
}
