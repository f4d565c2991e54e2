import type { ExtractionReport, MemoryStepReport } from '@nexus/core';
import { Counter, Histogram, type Registry } from './prometheus.ts';

/** Prometheus metrics of the memory step and of extraction, on the gateway's registry. */
export class MemoryMetrics {
  private readonly step: Histogram<'outcome'>;
  private readonly scopes: Counter<'scope'>;
  private readonly facts: Counter<'action'>;

  constructor(registry: Registry) {
    this.step = new Histogram({
      name: 'nexus_memory_step_seconds',
      help: 'Time the memory step took before a reply, by outcome (ok, partial, timeout, error).',
      labelNames: ['outcome'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.3, 1, 2, 5],
      registers: [registry],
    });
    this.scopes = new Counter({
      name: 'nexus_memory_scopes_found_total',
      help: 'Memory steps in which a scope (global, user, session, profile, summary) contributed memories.',
      labelNames: ['scope'],
      registers: [registry],
    });
    this.facts = new Counter({
      name: 'nexus_memory_extracted_total',
      help: 'Memories changed by extraction, by action.',
      labelNames: ['action'],
      registers: [registry],
    });
  }

  observeMemoryStep(report: MemoryStepReport): void {
    this.step.observe({ outcome: report.outcome }, report.durationMs / 1000);
    for (const scope of report.scopesFound) this.scopes.inc({ scope });
  }

  observeExtraction(report: ExtractionReport): void {
    this.facts.inc({ action: 'added' }, report.added);
    this.facts.inc({ action: 'updated' }, report.updated);
    this.facts.inc({ action: 'deleted' }, report.deleted);
  }
}
