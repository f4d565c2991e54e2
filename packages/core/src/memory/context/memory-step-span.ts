import type { Tracer } from '@opentelemetry/api';
import { inSpan } from '../../tracing/in-span.ts';
import { SPAN } from '../../tracing/span-names.ts';
import { recordMemoryInjection } from './record-memory-injection.ts';
import type { MemoryStepResult } from './run-memory-step.ts';

/**
 * `nexus.memory_step` around a memory step: which scopes answered, which timed out, what went
 * into the prompt, with the injection below it as a `memory.context.inject` generation. `for`
 * says whose prompt: the turn's, or a subagent's task block. The turn's composer and the
 * subagent run wrap their memory step with it; the step itself knows nothing of tracing.
 */
export function tracedMemoryStep<Args extends unknown[]>(
  tracer: Tracer | undefined,
  step: (...args: Args) => Promise<MemoryStepResult>,
  options: { for?: 'turn' | 'subagent' } = {},
): (...args: Args) => Promise<MemoryStepResult> {
  if (!tracer) return step;
  const target = options.for ?? 'turn';
  return (...args) =>
    inSpan(tracer, SPAN.memoryStep, { 'nexus.memory.for': target }, async (span) => {
      const startedAt = Date.now();
      const result = await step(...args);
      recordMemoryInjection(tracer, result.report, startedAt, { 'nexus.memory.for': target });
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
