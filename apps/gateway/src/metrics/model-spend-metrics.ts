import { Counter, type Registry } from './prometheus.ts';

/**
 * What model requests cost, per channel, in the same names on the gateway and the worker roles:
 * a gateway counts every message's spend (its subagents included, wherever they ran), a worker
 * counts the requests it made itself.
 */
export class ModelSpendMetrics {
  private readonly calls: Counter<'channel'>;
  private readonly tokens: Counter<'channel' | 'kind'>;
  private readonly exhausted: Counter<'channel' | 'reason'>;

  constructor(registry: Registry) {
    this.calls = new Counter({
      name: 'nexus_model_calls_total',
      help: 'Model requests made for inbound messages (steps, tool rounds, retries, subagents), by channel.',
      labelNames: ['channel'],
      registers: [registry],
    });
    this.tokens = new Counter({
      name: 'nexus_model_tokens_total',
      help: 'Tokens the provider reported for those requests, by channel and kind (input or output).',
      labelNames: ['channel', 'kind'],
      registers: [registry],
    });
    this.exhausted = new Counter({
      name: 'nexus_turns_budget_exhausted_total',
      help: 'Messages cut short or refused by a budget, by channel and reason (model_calls, output_tokens, input_tokens, daily_tokens).',
      labelNames: ['channel', 'reason'],
      registers: [registry],
    });
  }

  observeCalls(channel: string, count: number): void {
    if (count > 0) this.calls.inc({ channel }, count);
  }

  observeTokens(channel: string, usage: { inputTokens: number; outputTokens: number }): void {
    if (usage.inputTokens > 0) this.tokens.inc({ channel, kind: 'input' }, usage.inputTokens);
    if (usage.outputTokens > 0) this.tokens.inc({ channel, kind: 'output' }, usage.outputTokens);
  }

  observeExhausted(channel: string, reason: string): void {
    this.exhausted.inc({ channel, reason });
  }
}
