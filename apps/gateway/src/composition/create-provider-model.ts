import type { LanguageModel } from 'ai';
import type { GatewayConfig } from '../config/gateway-config.ts';

/**
 * The configured provider's model object, built on the calling thread: the main thread when model
 * threads are off (`NEXUS_MODEL_THREADS=0`), else each model thread (`model-threads/`).
 *
 * Only the configured provider's SDK is imported (each is a dynamic import below): the three
 * together are a few thousand lines of schemas and clients that a process talking to one
 * provider would parse and keep for nothing (docs/deployment.md, "Memory").
 */
export async function createProviderModel(
  model: Pick<GatewayConfig['model'], 'provider' | 'baseUrl' | 'apiKey' | 'name'>,
  options: { fetch?: typeof fetch } = {},
): Promise<Exclude<LanguageModel, string> | undefined> {
  if (!model.provider || !model.name) return undefined;
  switch (model.provider) {
    case 'openai-compatible': {
      const { createOpenAICompatible } = await import('@ai-sdk/openai-compatible');
      return createOpenAICompatible({
        name: 'openai-compatible',
        baseURL: model.baseUrl!,
        includeUsage: true,
        ...(model.apiKey ? { apiKey: model.apiKey } : {}),
        ...(options.fetch ? { fetch: options.fetch } : {}),
      })(model.name);
    }
    case 'openai': {
      const { createOpenAI } = await import('@ai-sdk/openai');
      // Chat Completions rather than Responses: it is what OpenAI-style proxies and gateways speak too.
      return createOpenAI({
        apiKey: model.apiKey!,
        ...(model.baseUrl ? { baseURL: model.baseUrl } : {}),
        ...(options.fetch ? { fetch: options.fetch } : {}),
      }).chat(model.name);
    }
    case 'anthropic': {
      const { createAnthropic } = await import('@ai-sdk/anthropic');
      return createAnthropic({
        apiKey: model.apiKey!,
        ...(model.baseUrl ? { baseURL: model.baseUrl } : {}),
        ...(options.fetch ? { fetch: options.fetch } : {}),
      })(model.name);
    }
  }
}
