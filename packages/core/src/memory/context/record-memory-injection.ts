import type { Tracer } from '@opentelemetry/api';
import type { MemoryStepReport } from './run-memory-step.ts';

/** The span name: memory put into a prompt, as a generation for Langfuse-style back ends. */
export const MEMORY_INJECTION_SPAN = 'memory.context.inject';

/**
 * Records the memory block going into a prompt as a child of the active span: a generation
 * (`langfuse.observation.type`, `gen_ai.operation.name`) timed from `startedAt`, with the memory
 * ids and counts. Like model calls (`model-call-telemetry.ts`), its input (the query) and output
 * (the block) are not recorded: they are what people told the assistant.
 */
export function recordMemoryInjection(
  tracer: Tracer,
  report: MemoryStepReport,
  startedAt: number,
  attributes: { 'nexus.memory.for': 'turn' | 'subagent' },
): void {
  tracer
    .startSpan(MEMORY_INJECTION_SPAN, {
      startTime: startedAt,
      attributes: {
        'langfuse.observation.type': 'generation',
        'gen_ai.operation.name': MEMORY_INJECTION_SPAN,
        'nexus.memory.outcome': report.outcome,
        'nexus.memory.memory_ids': report.memoryIds,
        'nexus.memory.memories_injected': report.memoriesUsed,
        'nexus.memory.tokens_injected': report.tokensUsed,
        ...attributes,
      },
    })
    .end();
}
