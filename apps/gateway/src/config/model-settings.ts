import { z } from 'zod';
import type { SettingDefinition } from './setting-definition.ts';
import { positiveInt } from './setting-schemas.ts';

/**
 * The language model: provider, address, key, name, system prompt, steps and time per reply.
 * Part of the settings table (`settings.ts`), in its order.
 */
export const MODEL_SETTINGS = [
  {
    env: 'NEXUS_MODEL_PROVIDER',
    path: 'model.provider',
    schema: z.enum(['openai-compatible', 'openai', 'anthropic']),
    description:
      'Model provider: `openai-compatible` (Ollama, vLLM, LM Studio, OpenRouter, …), `openai` or `anthropic`. Unset: Nexus starts and answers with setup instructions.',
    hint: 'use one of openai-compatible, openai, anthropic',
  },
  {
    env: 'NEXUS_MODEL_BASE_URL',
    path: 'model.baseUrl',
    schema: z.url(),
    description:
      'Base URL of the provider API, e.g. `http://127.0.0.1:11434/v1` for Ollama. Required for `openai-compatible`.',
    hint: 'use a full URL such as http://127.0.0.1:11434/v1',
  },
  {
    env: 'NEXUS_MODEL_API_KEY',
    path: 'model.apiKey',
    schema: z.string().min(1),
    description:
      'API key for the provider. Required for `openai` and `anthropic`. Also read from `NEXUS_MODEL_API_KEY_FILE`.',
    hint: 'paste the key from your provider’s dashboard, or point NEXUS_MODEL_API_KEY_FILE at a file holding it',
    secret: true,
  },
  {
    env: 'NEXUS_MODEL',
    path: 'model.name',
    schema: z.string().min(1),
    description: 'Model id, e.g. `llama3.1:8b`, `gpt-4o-mini`, `claude-sonnet-4-5`.',
    hint: 'set it to a model id your provider serves',
  },
  {
    env: 'NEXUS_SYSTEM_PROMPT',
    path: 'model.systemPrompt',
    schema: z.string().min(1).max(20_000),
    defaultValue:
      'You are Nexus, a helpful personal assistant. Answer clearly and concisely. Use Markdown when it helps.',
    description: 'System prompt for every conversation.',
    hint: 'set it to the instructions the assistant should follow (up to 20000 characters)',
  },
  {
    env: 'NEXUS_MODEL_MAX_STEPS',
    path: 'model.maxSteps',
    schema: positiveInt,
    defaultValue: 5,
    description: 'Most model steps (calls, including tool rounds) in one reply.',
    hint: 'set it to a positive integer such as 5',
  },
  {
    env: 'NEXUS_MODEL_TIMEOUT_MS',
    path: 'model.timeoutMs',
    schema: positiveInt,
    defaultValue: 120_000,
    description: 'Wall-clock limit for one reply, in milliseconds.',
    hint: 'set it to a positive number of milliseconds such as 120000',
  },
  {
    env: 'NEXUS_MODEL_THREADS',
    path: 'model.threads',
    schema: z.coerce.number().int().min(0).max(16),
    defaultValue: 0,
    description:
      'Worker threads that make the model requests and parse their streamed answers, so that work runs beside the main thread (the agent loop, tools and channels stay on it). `0` (the default) makes them on the main thread; `1` serves about 13% more turns a second on two cores under load, for about 40 MB more peak memory and 0.8 ms more per turn (docs/throughput.md, "Model threads").',
    hint: 'set it to a whole number from 0 (model requests on the main thread) to 16, such as 1',
  },
] as const satisfies readonly SettingDefinition[];
