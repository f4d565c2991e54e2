import type { LanguageModelMiddleware } from 'ai';
import { estimatePromptTokens } from './estimate-prompt-tokens.ts';
import { BudgetExhaustedError, type TurnBudget, type TurnSpend } from './turn-budget.ts';

interface ProviderUsage {
  inputTokens?: { total?: number | undefined } | undefined;
  outputTokens?: { total?: number | undefined } | undefined;
}

/**
 * Sits between the AI SDK and the provider, so it sees every request a run makes (each step,
 * each retry): it claims a call from the message's budget before the request goes out (refused
 * once the calls, output or input tokens are used up), limits the request's output tokens to what
 * is left, and charges the provider's reported usage after.
 * `run` tallies what this one run spent. A refused claim throws BudgetExhaustedError before any
 * request is sent.
 */
export function budgetMiddleware(budget: TurnBudget, run: TurnSpend): LanguageModelMiddleware {
  const claim = async () => {
    const granted = await budget.claimCall();
    if (!granted.ok) throw new BudgetExhaustedError(granted.reason);
    run.modelCalls += 1;
    return granted.maxOutputTokens;
  };
  const charge = async (usage: ProviderUsage | undefined, prompt: ReadonlyArray<{ content: unknown }>) => {
    // Input counts toward the per-message input cap; estimated when the provider reports none.
    const inputTokens = usage?.inputTokens?.total ?? estimatePromptTokens(prompt);
    const outputTokens = usage?.outputTokens?.total ?? 0;
    run.inputTokens += inputTokens;
    run.outputTokens += outputTokens;
    await budget.charge({ inputTokens, outputTokens });
  };
  return {
    wrapGenerate: async ({ params, model }) => {
      const allowed = await claim();
      const result = await model.doGenerate({ ...params, maxOutputTokens: capped(params, allowed) });
      await charge(result.usage, params.prompt);
      return result;
    },
    wrapStream: async ({ params, model }) => {
      const allowed = await claim();
      const result = await model.doStream({ ...params, maxOutputTokens: capped(params, allowed) });
      // A pull-through stream rather than pipeThrough(TransformStream): the same parts, without the
      // writable side and pipe loop a transform adds per part (the turn's hot path).
      const parts = result.stream.getReader();
      // A stream cut short (Stop, shutdown, a dropped connection) never gets its `finish` part
      // with usage: what was generated until then is charged, estimated from the text streamed.
      let charged = false;
      let streamedCharacters = 0;
      const chargeOnce = async (usage: ProviderUsage | undefined) => {
        if (charged) return;
        charged = true;
        await charge(usage ?? { outputTokens: { total: Math.ceil(streamedCharacters / 4) } }, params.prompt);
      };
      type Part = typeof result.stream extends ReadableStream<infer P> ? P : never;
      // The read handlers are made once per stream, not per part: each pull is one `then` on the
      // provider's read (an async pull function cost a promise and an await's closures per part).
      let output!: ReadableStreamDefaultController<Part>;
      const passOn = (next: Awaited<ReturnType<typeof parts.read>>): Promise<void> | undefined => {
        if (next.done) return chargeOnce(undefined).then(() => output.close());
        const part = next.value;
        if (part.type === 'text-delta') streamedCharacters += part.delta.length;
        else if (part.type === 'finish') return chargeOnce(part.usage).then(() => output.enqueue(part));
        output.enqueue(part);
        return undefined;
      };
      // The stream's own failure is what the run must report; a budget store that also fails
      // here would only hide it (the next claim meets that store again).
      const readFailed = (error: unknown): Promise<never> =>
        chargeOnce(undefined).then(
          () => Promise.reject(error),
          () => Promise.reject(error),
        );
      const passed = new ReadableStream<Part>({
        start(controller) {
          output = controller;
        },
        pull: () => parts.read().then(passOn, readFailed),
        cancel: async (reason) => {
          try {
            await chargeOnce(undefined);
          } finally {
            await parts.cancel(reason);
          }
        },
      });
      return { ...result, stream: passed };
    },
  };
}

function capped(params: { maxOutputTokens?: number | undefined }, allowed: number): number {
  return params.maxOutputTokens === undefined ? allowed : Math.min(params.maxOutputTokens, allowed);
}
