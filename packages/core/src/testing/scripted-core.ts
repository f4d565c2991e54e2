import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { approximateTokenCounter } from '@nexus/limits-kit';
import {
  type ChatCompletionRequest,
  type ScriptedModelServer,
  startScriptedModelServer,
} from '@nexus/testkit/llm';
import { createAgent } from '../agent.ts';
import { createNexusCore, type NexusCore } from '../nexus-core.ts';
import { createSqliteSessionStore } from '../sqlite-session-store.ts';

export interface ScriptedCore {
  model: ScriptedModelServer;
  core: NexusCore;
  /** The last user message of the model's `index`-th chat request: what the model was asked. */
  lastUserText(index: number): string;
  close(): Promise<void>;
}

/**
 * The real core (in-memory sessions, the AI SDK over HTTP) wired to a scripted model server: what
 * channel adapters' end-to-end tests run against.
 */
export async function startScriptedCore(): Promise<ScriptedCore> {
  const model = await startScriptedModelServer();
  const provider = createOpenAICompatible({ baseURL: model.baseUrl, name: 'scripted', apiKey: 'test-key' });
  const core = createNexusCore({
    sessionStore: createSqliteSessionStore({ path: ':memory:' }),
    agent: createAgent({ model: provider('scripted-model'), maxRetries: 0 }),
    tokenCounter: approximateTokenCounter,
  });
  return {
    model,
    core,
    lastUserText(index) {
      const body = model.chatRequests()[index]?.body as ChatCompletionRequest | undefined;
      const content = body?.messages.findLast((message) => message.role === 'user')?.content;
      return typeof content === 'string' ? content : JSON.stringify(content);
    },
    async close() {
      await core.shutdown({ deadlineMs: 2000 });
      await model.close();
    },
  };
}
