import type { AgentRunReport, BudgetObserver } from '@nexus/agent-redis';
import { ModelSpendMetrics } from './model-spend-metrics.ts';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from './prometheus.ts';

/** Prometheus metrics of one worker process. */
export class WorkerMetrics {
  readonly registry = new Registry();
  readonly activeRuns = new Gauge({
    name: 'nexus_agent_runs_active',
    help: 'Agent runs this worker is running now.',
    registers: [this.registry],
  });
  private readonly runs = new Counter({
    name: 'nexus_agent_runs_total',
    help: 'Agent runs finished by this worker, by outcome.',
    labelNames: ['outcome'],
    registers: [this.registry],
  });
  private readonly duration = new Histogram({
    name: 'nexus_agent_run_duration_seconds',
    help: 'Time from picking an agent run up to its last message.',
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120],
    registers: [this.registry],
  });

  private readonly extractions = new Counter({
    name: 'nexus_worker_memory_extractions_total',
    help: 'Memory extraction jobs this worker completed.',
    registers: [this.registry],
  });

  readonly spend = new ModelSpendMetrics(this.registry);
  /** Hand it to the agent-run worker: each request and its tokens, per channel, as they happen. */
  readonly budgetObserver: BudgetObserver = {
    onCall: (channel) => this.spend.observeCalls(channel, 1),
    onUsage: (channel, usage) => this.spend.observeTokens(channel, usage),
    onStopped: (channel, reason) => this.spend.observeExhausted(channel, reason),
  };

  constructor() {
    collectDefaultMetrics({ register: this.registry });
  }

  observeRun(report: AgentRunReport): void {
    this.runs.inc({ outcome: report.outcome });
    if (report.outcome !== 'skipped') this.duration.observe(report.durationMs / 1000);
  }

  observeExtraction(): void {
    this.extractions.inc();
  }
}
