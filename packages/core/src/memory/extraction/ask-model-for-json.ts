import { JobError, PermanentJobError } from '@nexus/protocol';
import type { LanguageModel } from 'ai';
import type { z } from 'zod';
import { toModelError } from '../../errors/model-error.ts';
import { failureMessage } from './failure-message.ts';
import { parseModelJson } from './parse-model-json.ts';
import { type PlainTextCallOptions, plainTextCall } from './plain-text-call.ts';

export interface AskModelForJsonOptions<T> {
  model: LanguageModel;
  /** Names the step in errors and in the reason a parked job carries. */
  step: string;
  instructions: string;
  prompt: string;
  schema: z.ZodType<T>;
  abortSignal?: AbortSignal;
  maxOutputTokens?: number;
}

/**
 * One model call that must answer with JSON matching `schema`. An invalid answer is retried
 * once, with the problem pointed out; a second invalid answer throws `PermanentJobError` (the
 * job is parked with the reason, since asking again would most likely fail the same way). A
 * failed call (network, provider) throws a retryable `JobError` so the queue retries later.
 */
export async function askModelForJson<T>(options: AskModelForJsonOptions<T>): Promise<T> {
  const messages: PlainTextCallOptions['messages'][number][] = [{ role: 'user', content: options.prompt }];
  let lastError = '';
  for (let attempt = 1; attempt <= 2; attempt += 1) {
    let text: string;
    try {
      text = await plainTextCall({
        model: options.model,
        instructions: options.instructions,
        messages,
        ...(options.maxOutputTokens ? { maxOutputTokens: options.maxOutputTokens } : {}),
        ...(options.abortSignal ? { abortSignal: options.abortSignal } : {}),
      });
    } catch (error) {
      if (options.abortSignal?.aborted) throw options.abortSignal.reason ?? error;
      const failure = toModelError(error, { shuttingDown: false });
      const message = `${options.step}: the model call failed: ${failureMessage(error)}`;
      // The provider said no (bad key, unknown model): park until the operator fixes it.
      if (!failure.retryable) throw new PermanentJobError({ code: failure.code, message, cause: error });
      throw new JobError({ code: failure.code, message, cause: error });
    }
    const parsed = parseModelJson(text, options.schema);
    if (parsed.success) return parsed.value;
    lastError = parsed.error;
    messages.push(
      { role: 'assistant', content: text },
      {
        role: 'user',
        content: `That answer was invalid: ${parsed.error}. Answer again with the JSON object only, exactly in the format asked for.`,
      },
    );
  }
  throw new PermanentJobError({
    code: 'internal',
    message: `${options.step}: the model's answer was invalid twice: ${lastError}`,
  });
}
