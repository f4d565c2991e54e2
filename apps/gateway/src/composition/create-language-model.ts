import type { LanguageModel } from 'ai';
import type { GatewayConfig } from '../config/gateway-config.ts';

/**
 * Picks the provider from config. Returns undefined when no provider is configured: the gateway
 * still starts and answers with setup instructions instead of failing.
 *
 * Only the configured provider's SDK is imported (each is a dynamic import below): the three
 * together are a few thousand lines of schemas and clients that a process talking to one
 * provider would parse and keep for nothing (docs/deployment.md, "Memory").
 */
export async function createLanguageModel(
  model: GatewayConfig['model'],
  options: { fetch?: typeof fetch } = {},
): Promise<LanguageModel | undefined> {
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

/** What the web client and the startup log say when no model provider is configured. */
export const NOT_CONFIGURED_MESSAGE =
  'No model provider is configured yet, so I cannot answer. Set NEXUS_MODEL_PROVIDER (openai-compatible, openai or anthropic), NEXUS_MODEL and, as needed, NEXUS_MODEL_BASE_URL and NEXUS_MODEL_API_KEY, then restart Nexus. Example for Ollama: NEXUS_MODEL_PROVIDER=openai-compatible NEXUS_MODEL_BASE_URL=http://127.0.0.1:11434/v1 NEXUS_MODEL=llama3.1:8b';
