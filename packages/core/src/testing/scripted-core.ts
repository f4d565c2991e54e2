import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { approximateTokenCounter } from '@nexus/limits-kit';
import {
  type ChatCompletionRequest,
  type ScriptedModelServer,
  startScriptedModelServer,
} from '@nexus/testkit/llm';
import { createAgent } from '../agent/agent.ts';
import { DEFAULT_MEDIA_SETTINGS, type MediaSettings } from '../media/media-settings.ts';
import { createOpenAiTranscriber } from '../media/transcriber.ts';
import { createNexusCore, type NexusCore } from '../nexus-core.ts';
import { createSqliteSessionStore } from '../session-store/sqlite-session-store.ts';

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
export interface ScriptedCoreOptions {
  /** Media settings over the defaults; `transcribe: true` points transcription at the scripted server. */
  media?: Partial<MediaSettings> & { transcribe?: boolean };
}

export async function startScriptedCore(options: ScriptedCoreOptions = {}): Promise<ScriptedCore> {
  const model = await startScriptedModelServer();
  const { transcribe, ...mediaOverrides } = options.media ?? {};
  const media: MediaSettings = {
    ...DEFAULT_MEDIA_SETTINGS,
    ...mediaOverrides,
    ...(transcribe
      ? { transcriber: createOpenAiTranscriber({ baseUrl: model.baseUrl, model: 'whisper-1' }) }
      : {}),
  };
  const provider = createOpenAICompatible({ baseURL: model.baseUrl, name: 'scripted', apiKey: 'test-key' });
  const core = createNexusCore({
    sessionStore: createSqliteSessionStore({ path: ':memory:' }),
    agent: createAgent({ model: provider('scripted-model'), maxRetries: 0 }),
    tokenCounter: approximateTokenCounter,
    media,
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
