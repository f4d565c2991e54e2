import { ModelSpendMetrics } from './model-spend-metrics.ts';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from './prometheus.ts';
import { ToolMetrics } from './tool-metrics.ts';

export interface TurnObservation {
  channel: string;
  outcome: string;
  errorCode?: string;
  queuedMs: number;
  durationMs: number;
  firstDeltaMs?: number;
  /** Model requests and tokens of the whole message. */
  spend?: { modelCalls: number; inputTokens: number; outputTokens: number };
  budgetExhausted?: string;
}

/** Prometheus metrics of one gateway; a registry per instance so tests can run several. */
export class GatewayMetrics {
  readonly registry = new Registry();
  private readonly turns = new Counter({
    name: 'nexus_turns_total',
    help: 'Turns finished, by channel and outcome.',
    labelNames: ['channel', 'outcome', 'error_code'],
    registers: [this.registry],
  });
  private readonly turnDuration = new Histogram({
    name: 'nexus_turn_duration_seconds',
    help: 'Time from a turn leaving its queue to its last reply event.',
    labelNames: ['channel'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120],
    registers: [this.registry],
  });
  private readonly firstDelta = new Histogram({
    name: 'nexus_turn_first_delta_seconds',
    help: 'Time from a turn leaving its queue to the first streamed text.',
    labelNames: ['channel'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });
  private readonly queued = new Histogram({
    name: 'nexus_turn_queue_seconds',
    help: 'Time a turn waited in its conversation lane and for a global slot.',
    labelNames: ['channel'],
    buckets: [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 30],
    registers: [this.registry],
  });
  readonly activeTurns = new Gauge({
    name: 'nexus_active_turns',
    help: 'Turns being generated now.',
    registers: [this.registry],
  });
  readonly queuedTurns = new Gauge({
    name: 'nexus_queued_turns',
    help: 'Turns waiting in lanes.',
    registers: [this.registry],
  });
  readonly turnsWaitingForSlot = new Gauge({
    name: 'nexus_turns_waiting_for_slot',
    help: 'Conversations whose next turn waits for a free turn slot (NEXUS_MAX_CONCURRENT_TURNS all taken); while above 0, memory extraction and summaries in this process wait.',
    registers: [this.registry],
  });
  readonly webConnections = new Gauge({
    name: 'nexus_web_connections',
    help: 'Open web-socket connections.',
    registers: [this.registry],
  });

  readonly spend = new ModelSpendMetrics(this.registry);

  readonly tools = new ToolMetrics(this.registry);

  constructor() {
    collectDefaultMetrics({ register: this.registry, prefix: 'nexus_' });
  }

  observeTurn(turn: TurnObservation): void {
    this.turns.inc({ channel: turn.channel, outcome: turn.outcome, error_code: turn.errorCode ?? '' });
    this.turnDuration.observe({ channel: turn.channel }, turn.durationMs / 1000);
    this.queued.observe({ channel: turn.channel }, turn.queuedMs / 1000);
    if (turn.firstDeltaMs !== undefined)
      this.firstDelta.observe({ channel: turn.channel }, turn.firstDeltaMs / 1000);
    if (turn.spend) {
      this.spend.observeCalls(turn.channel, turn.spend.modelCalls);
      this.spend.observeTokens(turn.channel, turn.spend);
    }
    if (turn.budgetExhausted) this.spend.observeExhausted(turn.channel, turn.budgetExhausted);
  }
}
