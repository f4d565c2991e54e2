import type { Intent } from '@nexus/protocol';
import type { Attributes } from '@opentelemetry/api';
import { spanIdOf, type TurnTracing } from '../tracing/turn-tracing.ts';
import type { TurnResult } from './turn-types.ts';

/** `nexus.turn`'s attributes known at the start: channel, pseudonymised intent id, conversation kind. */
export function turnSpanAttributes(tracing: TurnTracing | undefined, intent: Intent): Attributes {
  const intentId = spanIdOf(tracing, intent.id);
  return {
    'nexus.channel': intent.channel,
    ...(intentId ? { 'nexus.intent_id': intentId } : {}),
    'nexus.conversation_kind': intent.conversation.kind,
  };
}

/** `nexus.turn`'s attributes from the report: outcome, model calls, tokens, why it stopped. */
export function turnOutcomeAttributes({ report }: TurnResult): Attributes {
  return {
    'nexus.turn.outcome': report.outcome,
    'nexus.turn.model_calls': report.spend.modelCalls,
    'nexus.turn.input_tokens': report.spend.inputTokens,
    'nexus.turn.output_tokens': report.spend.outputTokens,
    ...(report.errorCode ? { 'nexus.turn.error_code': report.errorCode } : {}),
    ...(report.budgetExhausted ? { 'nexus.turn.budget_exhausted': report.budgetExhausted } : {}),
  };
}
