import type { Logger } from '@nexus/protocol';
import type { LanguageModel } from 'ai';
import type { GatewayConfig } from '../config/gateway-config.ts';
import { createProviderModel } from './create-provider-model.ts';
import { sharedModelThreads } from './model-threads/model-thread-pool.ts';
import { createThreadedLanguageModel } from './model-threads/threaded-language-model.ts';

/**
 * Picks the provider from config. Returns undefined when no provider is configured: the gateway
 * still starts and answers with setup instructions instead of failing.
 *
 * With model threads (`NEXUS_MODEL_THREADS`, off by default) the provider's model object lives on
 * a worker thread, which makes the HTTP request and parses the streamed answer; this thread gets
 * a model object that forwards each call there and hands back its stream parts, so the agent loop
 * (the AI SDK, tools, steps) runs here as before while the call's own work uses the other core.
 * `options.fetch` serves only calls made on this thread (threads off): a model thread has its
 * own client of the same kind (`createModelFetch`).
 */
export async function createLanguageModel(
  model: GatewayConfig['model'],
  options: { fetch?: typeof fetch; logger?: Logger } = {},
): Promise<LanguageModel | undefined> {
  if (!model.provider || !model.name) return undefined;
  const threads = model.threads ?? 0;
  if (threads === 0) return createProviderModel(model, options.fetch ? { fetch: options.fetch } : {});
  const { provider, baseUrl, apiKey, name } = model;
  return createThreadedLanguageModel(sharedModelThreads(threads, options.logger), {
    provider,
    name,
    ...(baseUrl ? { baseUrl } : {}),
    ...(apiKey ? { apiKey } : {}),
  });
}

/** What the web client and the startup log say when no model provider is configured. */
export const NOT_CONFIGURED_MESSAGE =
  'No model provider is configured yet, so I cannot answer. Set NEXUS_MODEL_PROVIDER (openai-compatible, openai or anthropic), NEXUS_MODEL and, as needed, NEXUS_MODEL_BASE_URL and NEXUS_MODEL_API_KEY, then restart Nexus. Example for Ollama: NEXUS_MODEL_PROVIDER=openai-compatible NEXUS_MODEL_BASE_URL=http://127.0.0.1:11434/v1 NEXUS_MODEL=llama3.1:8b';
