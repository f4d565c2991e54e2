import { createRequire } from 'node:module';
import { generateText, type LanguageModel } from 'ai';
import type { resolveLanguageModel } from 'ai/internal';
import { modelCallsTraced, modelCallTelemetry } from '../../tracing/model-call-telemetry.ts';

export interface PlainTextCallOptions {
  model: LanguageModel;
  instructions: string;
  /** The conversation after the instructions, alternating user and assistant, plain text only. */
  messages: ReadonlyArray<{ role: 'user' | 'assistant'; content: string }>;
  abortSignal?: AbortSignal;
  maxOutputTokens?: number;
}

type ProviderModel = ReturnType<typeof resolveLanguageModel>;
type ProviderCallOptions = Parameters<ProviderModel['doGenerate']>[0];

/** The header `generateText` sends with every call (`ai/<version>`), so the request stays the same. */
const HEADERS: Record<string, string> = {
  'user-agent': `ai/${(createRequire(import.meta.url)('ai/package.json') as { version: string }).version}`,
};
const TOOL_CHOICE = { type: 'auto' } as const;
/**
 * The SDK's own model resolution and retry, from its `ai/internal` entry: a bundle of its own
 * (135 KB, about 8 ms of CPU to load), so loaded at the first call rather than at start.
 */
let sdkInternals: Promise<typeof import('ai/internal')> | undefined;

/**
 * One non-streamed model call at temperature 0 with one retry, for a background job's text (memory
 * extraction asks after every answered turn). With tracing off it hands the provider model exactly
 * the options `generateText` would (same prompt, settings, headers and retry with backoff) without
 * `generateText`'s step machinery around it: its tool, approval and callback bookkeeping, prompt
 * validation and copies, and the step and response objects built from the answer were a fifth of
 * an extraction's main-thread time for a call that uses none of them. With tracing on
 * `generateText` runs, so the call still gets its spans. `plain-text-call.test.ts` checks that both
 * paths give the provider the same options.
 */
export async function plainTextCall(options: PlainTextCallOptions): Promise<string> {
  if (modelCallsTraced() || typeof options.model === 'string') return viaGenerateText(options);
  sdkInternals ??= import('ai/internal');
  const { prepareRetries, resolveLanguageModel } = await sdkInternals;
  const model = resolveLanguageModel(options.model);
  const { retry } = prepareRetries({ maxRetries: 1, abortSignal: options.abortSignal });
  // `generateText` also passes every other setting, as undefined: the provider reads none of them.
  const callOptions: ProviderCallOptions = {
    ...(options.maxOutputTokens ? { maxOutputTokens: options.maxOutputTokens } : {}),
    temperature: 0,
    toolChoice: TOOL_CHOICE,
    prompt: [
      { role: 'system', content: options.instructions },
      ...options.messages.map((message) => ({
        role: message.role,
        content: [{ type: 'text' as const, text: message.content }],
      })),
    ],
    ...(options.abortSignal ? { abortSignal: options.abortSignal } : {}),
    headers: HEADERS,
  };
  const result = await retry(() => model.doGenerate(callOptions));
  let text = '';
  for (const part of result.content) if (part.type === 'text') text += part.text;
  return text;
}

async function viaGenerateText(options: PlainTextCallOptions): Promise<string> {
  const result = await generateText({
    model: options.model,
    instructions: options.instructions,
    messages: options.messages.map((message) => ({ ...message })),
    temperature: 0,
    maxRetries: 1,
    telemetry: modelCallTelemetry(),
    ...(options.maxOutputTokens ? { maxOutputTokens: options.maxOutputTokens } : {}),
    ...(options.abortSignal ? { abortSignal: options.abortSignal } : {}),
  });
  return result.text;
}
