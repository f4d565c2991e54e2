import { Counter, type Registry } from './prometheus.ts';

/** Outside tool calls and proactive deliveries, as `/metrics` shows them. */
export class ToolMetrics {
  private readonly calls: Counter<'tool' | 'outcome'>;
  private readonly deliveries: Counter<'channel' | 'outcome'>;

  constructor(registry: Registry) {
    this.calls = new Counter({
      name: 'nexus_tool_calls_total',
      help: 'Tool calls the model made to outside tools (MCP servers, schedule), by tool and outcome (ok, error, timeout, refused).',
      labelNames: ['tool', 'outcome'],
      registers: [registry],
    });
    this.deliveries = new Counter({
      name: 'nexus_scheduled_deliveries_total',
      help: 'Reminders and scheduled messages, by channel and outcome (delivered, late, refused, failed).',
      labelNames: ['channel', 'outcome'],
      registers: [registry],
    });
  }

  observeToolCall(tool: string, outcome: string): void {
    this.calls.inc({ tool, outcome });
  }

  observeDelivery(channel: string, outcome: string): void {
    this.deliveries.inc({ channel, outcome });
  }
}
