import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import {
  approximateTokenCounter,
  createAgent,
  createNexusCore,
  createSqliteSessionStore,
  type NexusCore,
  type TurnTracing,
} from '@nexus/core';
import type { ChannelAdapter } from '@nexus/protocol';
import { TEST_CHANNEL_CAPABILITIES } from '@nexus/testkit/channel';
import { type ScriptedModelServer, startScriptedModelServer } from '@nexus/testkit/llm';
import { context, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const START_TRACING = fileURLToPath(new URL('./start-tracing.ts', import.meta.url));
const START_GATEWAY = fileURLToPath(new URL('../start-gateway.ts', import.meta.url));
const START_WORKER = fileURLToPath(new URL('../roles/start-worker.ts', import.meta.url));
const LOAD_CONFIG = fileURLToPath(new URL('../config/load-config.ts', import.meta.url));
const GATEWAY_METRICS = fileURLToPath(new URL('../metrics/gateway-metrics.ts', import.meta.url));

/**
 * A fresh node process that records every module it resolves, loads the gateway's and the
 * worker's whole module graph and the config from `env`, builds the metrics, and calls `startTracing` as `nexus start`
 * does. Answers the OTel modules it loaded and whether tracing came back on.
 */
async function startTracingIn(env: Record<string, string>): Promise<{ on: boolean; loaded: string[] }> {
  const script = `
    import { registerHooks } from 'node:module';
    const loaded = new Set();
    registerHooks({
      resolve(specifier, context, next) {
        if (/@opentelemetry\\/|@ai-sdk\\/otel/.test(specifier)) {
          const from = /.*node_modules\\/((?:@[^/]+\\/)?[^/]+)\\//.exec(context.parentURL ?? '')?.[1] ?? 'nexus';
          loaded.add(specifier + ' <- ' + from);
        }
        return next(specifier, context);
      },
    });
    await import(${JSON.stringify(START_GATEWAY)});
    await import(${JSON.stringify(START_WORKER)});
    const { GatewayMetrics } = await import(${JSON.stringify(GATEWAY_METRICS)});
    await new GatewayMetrics().registry.metrics();
    const { loadConfig } = await import(${JSON.stringify(LOAD_CONFIG)});
    const { startTracing } = await import(${JSON.stringify(START_TRACING)});
    const silent = { debug() {}, info() {}, warn() {}, error() {}, child() { return silent; } };
    const tracing = await startTracing(loadConfig({ env: process.env }), 'all', silent);
    await tracing?.shutdown();
    console.log(JSON.stringify({ on: tracing !== undefined, loaded: [...loaded] }));
  `;
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(([key]) => !key.startsWith('NEXUS_') && !key.startsWith('OTEL_')),
  );
  const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], {
    env: { ...inherited, ...env },
  });
  return JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}');
}

describe('tracing off', () => {
  it('loads no OpenTelemetry module of its own, not even the API, when no OTLP endpoint is set', async () => {
    const off = await startTracingIn({});
    expect(off.on).toBe(false);
    // Not even through prom-client, whose index requires the API for exemplars (prometheus.ts).
    expect(off.loaded).toEqual([]);
    // The same start with an endpoint loads them: the check above sees what it claims to.
    const on = await startTracingIn({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9' });
    expect(on.on).toBe(true);
    expect(on.loaded).toEqual(
      expect.arrayContaining([
        '@opentelemetry/api <- nexus',
        '@opentelemetry/sdk-trace <- nexus',
        '@opentelemetry/exporter-trace-otlp-http <- nexus',
        '@ai-sdk/otel <- nexus',
      ]),
    );
  }, 30_000);

  describe('core', () => {
    let model: ScriptedModelServer;
    const exporter = new InMemorySpanExporter();
    const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
    const cores: NexusCore[] = [];

    beforeAll(async () => {
      model = await startScriptedModelServer();
      // An SDK registered globally, as another library in the process might: core must still make
      // no span unless it was handed a tracer.
      context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
      trace.setGlobalTracerProvider(provider);
    });
    afterAll(async () => {
      await Promise.all(cores.map((core) => core.shutdown({ deadlineMs: 1000 })));
      await model.close();
      trace.disable();
      context.disable();
      propagation.disable();
      await provider.shutdown();
    });

    async function answerOneMessage(tracing: TurnTracing | undefined, id: string): Promise<void> {
      const provided = createOpenAICompatible({ baseURL: model.baseUrl, name: 'scripted', apiKey: 'k' });
      let delivered: () => void = () => undefined;
      const done = new Promise<void>((resolve) => {
        delivered = resolve;
      });
      const adapter: ChannelAdapter = {
        name: 'test',
        capabilities: TEST_CHANNEL_CAPABILITIES,
        async start() {},
        async stop() {},
        health: () => ({ status: 'up' }),
        async deliver({ events }) {
          for await (const _event of events);
          delivered();
        },
      };
      const core = createNexusCore({
        sessionStore: createSqliteSessionStore({ path: ':memory:' }),
        agent: createAgent({ model: provided('scripted-model'), maxRetries: 0 }),
        tokenCounter: approximateTokenCounter,
        ...(tracing ? { tracing } : {}),
      });
      cores.push(core);
      core.registerChannel(adapter);
      const result = await core.intake({
        id,
        channel: 'test',
        conversation: { id: `conversation-${id}`, kind: 'direct' },
        sender: { platformId: 'person-1', displayName: 'Person' },
        userId: 'test:person-1',
        text: 'hello there',
        mentionsAssistant: false,
        receivedAt: new Date().toISOString(),
      });
      expect(result.status).toBe('accepted');
      await done;
      await core.whenIdle();
    }

    it('makes no span without a tracer, even with an SDK registered in the process', async () => {
      await answerOneMessage(undefined, 'untraced');
      expect(exporter.getFinishedSpans()).toEqual([]);
      // Handed one, the same message is traced: the empty list above is not a broken exporter.
      await answerOneMessage(
        {
          tracer: provider.getTracer('nexus'),
          bindToActiveContext: (fn) => context.bind(context.active(), fn),
        },
        'traced',
      );
      await expect
        .poll(() => exporter.getFinishedSpans().map((span) => span.name))
        .toEqual(expect.arrayContaining(['nexus.intake', 'nexus.turn', 'nexus.delivery']));
      const spans = exporter.getFinishedSpans();
      const named = (name: string) => spans.find((span) => span.name === name);
      const parentOf = (name: string) => named(name)?.parentSpanContext?.spanId;
      expect(named('nexus.intake')?.parentSpanContext).toBeUndefined();
      expect(parentOf('nexus.turn')).toBe(named('nexus.intake')?.spanContext().spanId);
      expect(parentOf('nexus.delivery')).toBe(named('nexus.turn')?.spanContext().spanId);
      expect(new Set(spans.map((span) => span.spanContext().traceId)).size).toBe(1);
    });
  });
});
