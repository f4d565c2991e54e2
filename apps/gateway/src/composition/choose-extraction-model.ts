import type { GatewayConfig } from '../config/gateway-config.ts';

type Provider = NonNullable<GatewayConfig['model']['provider']>;

/**
 * Chat models with a cheaper sibling at the same provider that is good enough for extraction and
 * summaries (short JSON answers, 1–2 calls per turn). The table of docs/memory-in-the-loop.md ("Extraction
 * model") lists the same rows; keep them in step. Ollama rows need the smaller tag pulled
 * (`ollama pull …`); until it is, extraction falls back to the chat model.
 */
const CHEAPER_SIBLINGS: Record<Provider, Array<{ chat: RegExp; cheaper: string }>> = {
  openai: [
    { chat: /^gpt-5(-\d{4}-\d{2}-\d{2})?$/u, cheaper: 'gpt-5-mini' },
    { chat: /^gpt-5-mini(-\d{4}-\d{2}-\d{2})?$/u, cheaper: 'gpt-5-nano' },
    { chat: /^gpt-4\.1(-\d{4}-\d{2}-\d{2})?$/u, cheaper: 'gpt-4.1-mini' },
    { chat: /^gpt-4\.1-mini(-\d{4}-\d{2}-\d{2})?$/u, cheaper: 'gpt-4.1-nano' },
    { chat: /^(gpt-4o|chatgpt-4o-latest)(-\d{4}-\d{2}-\d{2})?$/u, cheaper: 'gpt-4o-mini' },
  ],
  anthropic: [
    { chat: /^claude-(opus|sonnet)-4(-\d+)*(-latest)?$/u, cheaper: 'claude-haiku-4-5' },
    { chat: /^claude-3-[57]-sonnet(-\d+|-latest)?$/u, cheaper: 'claude-3-5-haiku-latest' },
  ],
  'openai-compatible': [
    { chat: /^llama3\.[13]:70b/u, cheaper: 'llama3.1:8b' },
    { chat: /^qwen2\.5:(14|32|72)b/u, cheaper: 'qwen2.5:7b' },
    { chat: /^qwen3:(14|30|32)b/u, cheaper: 'qwen3:8b' },
    { chat: /^gemma3:(12|27)b/u, cheaper: 'gemma3:4b' },
  ],
};

export interface ExtractionModelChoice {
  /** The model id extraction and summaries use. */
  name: string;
  /** Why, for the start log and `nexus doctor`. */
  why: string;
  /** The chat model, used instead when the provider does not serve `name` (a cheaper sibling only). */
  fallback?: string;
}

/**
 * Which model extracts memories and writes summaries: `NEXUS_EXTRACTION_MODEL` when set, else the
 * chat model's cheaper sibling from the table, else the chat model. Undefined without a model.
 */
export function chooseExtractionModel(
  model: GatewayConfig['model'],
  configured?: string,
): ExtractionModelChoice | undefined {
  if (!model.provider || !model.name) return undefined;
  if (configured) return { name: configured, why: 'NEXUS_EXTRACTION_MODEL is set' };
  const chat = model.name;
  const sibling = CHEAPER_SIBLINGS[model.provider].find((row) => row.chat.test(chat));
  if (!sibling || sibling.cheaper === chat)
    return { name: chat, why: `no cheaper sibling of ${chat} is known at ${model.provider}: the chat model` };
  return {
    name: sibling.cheaper,
    why: `the cheaper sibling of ${chat} at ${model.provider}; ${chat} if the provider does not serve it; NEXUS_EXTRACTION_MODEL overrides`,
    fallback: chat,
  };
}
