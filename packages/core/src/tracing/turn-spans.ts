import type { Intent } from '@nexus/protocol';
import type { Tracer } from '@opentelemetry/api';
import type { MemoryStepResult } from '../memory/context/run-memory-step.ts';
import type { TurnResult } from '../turn/turn-types.ts';
import { inSpan } from './in-span.ts';
import { recordMemoryInjection } from '../memory/context/record-memory-injection.ts';
import { spanIdOf, type TurnTracing } from './turn-tracing.ts';

/** Span and attribute names, as documented in docs/observability.md. */
export const SPAN = {
  intake: 'nexus.intake',
  access: 'nexus.access',
  turn: 'nexus.turn',
  memoryStep: 'nexus.memory_step',
  delivery: 'nexus.delivery',
} as const;

/** `nexus.turn`: open from the start of the turn until it is delivered and stored (its drain). */
export function traceTurn(
  tracing: TurnTracing | undefined,
  intent: Intent,
  run: () => Promise<TurnResult>,
): Promise<TurnResult> {
  const intentId = spanIdOf(tracing, intent.id);
  return inSpan(
    tracing?.tracer,
    SPAN.turn,
    {
      'nexus.channel': intent.channel,
      ...(intentId ? { 'nexus.intent_id': intentId } : {}),
      'nexus.conversation_kind': intent.conversation.kind,
    },
    async (span) => {
      const result = await run();
      if (!span) return result;
      const { report } = result;
      span.setAttributes({
        'nexus.turn.outcome': report.outcome,
        'nexus.turn.model_calls': report.spend.modelCalls,
        'nexus.turn.input_tokens': report.spend.inputTokens,
        'nexus.turn.output_tokens': report.spend.outputTokens,
        ...(report.errorCode ? { 'nexus.turn.error_code': report.errorCode } : {}),
        ...(report.budgetExhausted ? { 'nexus.turn.budget_exhausted': report.budgetExhausted } : {}),
      });
      void result.drain.finally(() => span.end());
      return result;
    },
    { keepOpen: true },
  );
}

/**
 * `nexus.memory_step`: which scopes answered, which timed out, what went into the prompt, with
 * the injection below it as a `memory.context.inject` generation. `for` says whose prompt: the
 * turn's, or a subagent's task block.
 */
export function traceMemoryStep(
  tracer: Tracer | undefined,
  run: () => Promise<MemoryStepResult>,
  options: { for?: 'turn' | 'subagent' } = {},
): Promise<MemoryStepResult> {
  const target = options.for ?? 'turn';
  return inSpan(tracer, SPAN.memoryStep, { 'nexus.memory.for': target }, async (span) => {
    const startedAt = Date.now();
    const result = await run();
    if (tracer) recordMemoryInjection(tracer, result.report, startedAt, { 'nexus.memory.for': target });
    const { report } = result;
    span?.setAttributes({
      'nexus.memory.outcome': report.outcome,
      'nexus.memory.scopes_answered': report.scopesFound,
      'nexus.memory.scopes_missing': report.scopesMissing,
      'nexus.memory.scopes_timed_out': report.scopesTimedOut,
      'nexus.memory.memory_ids': report.memoryIds,
      'nexus.memory.memories_injected': report.memoriesUsed,
      'nexus.memory.tokens_injected': report.tokensUsed,
      'nexus.memory.slow': report.slow,
    });
    return result;
  });
}

/** `nexus.delivery`: the channel adapter rendering the reply stream, until it is done. */
export function traceDelivery(
  tracer: Tracer | undefined,
  channel: string,
  deliver: () => Promise<void>,
): Promise<void> {
  return inSpan(tracer, SPAN.delivery, { 'nexus.channel': channel }, () => deliver());
}
