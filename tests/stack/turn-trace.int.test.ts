import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createSqliteMemoryStore,
  type MemoryHttpServer,
  MemoryService,
  startMemoryHttpServer,
} from '@nexus/memory';
import { type ScriptedModelServer, startScriptedModelServer } from '@nexus/testkit/llm';
import { WebChatClient } from '@nexus/testkit/web-chat';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHAT_REPLY, memoryAwareResponder } from '../../apps/gateway/src/testing/memory-test-support.ts';
import {
  type OtlpReceiver,
  type ReceivedSpan,
  startOtlpReceiver,
} from '../../apps/gateway/src/testing/otlp-receiver.ts';
import { metricValue, Stack } from './stack-processes.ts';

// A gateway and a worker over Redis export their spans (OTLP/HTTP, JSON) to a receiver in this
// process. One web-chat turn must come out as one trace across both processes: intake → access →
// turn → memory step and delivery on the gateway; the agent run and its model call, and the
// extraction job the turn queued, on the worker.

const TOKEN = 'stack-test-token-0123456789';
const MEMORY_KEY = 'stack-test-memory-key-0123456789';

describe('a turn traced end to end', () => {
  let model: ScriptedModelServer;
  let receiver: OtlpReceiver;
  let stack: Stack;
  let memoryDir: string;
  let memoryServer: MemoryHttpServer;

  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    model = await startScriptedModelServer();
    model.setResponder(memoryAwareResponder);
    memoryDir = await mkdtemp(join(tmpdir(), 'nexus-stack-memory-'));
    const service = new MemoryService({
      store: createSqliteMemoryStore({ path: join(memoryDir, 'memory.sqlite') }),
    });
    memoryServer = await startMemoryHttpServer({ service, apiKey: MEMORY_KEY, port: 0 });
    stack = new Stack({
      modelBaseUrl: model.baseUrl,
      token: TOKEN,
      env: {
        NEXUS_MEMORY_MODE: 'http',
        NEXUS_MEMORY_URL: memoryServer.url,
        NEXUS_MEMORY_API_KEY: MEMORY_KEY,
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      },
    });
  });
  afterAll(async () => {
    await stack?.close();
    await memoryServer?.close();
    await model?.close();
    await receiver?.close();
    if (memoryDir) await rm(memoryDir, { recursive: true, force: true });
  }, 60_000);

  it('joins intake, memory step, model call, delivery and the extraction job on the worker in one trace', async () => {
    const [gateway, worker] = await Promise.all([
      stack.start('gateway', { OTEL_SERVICE_NAME: 'nexus-gateway' }),
      stack.start('worker', { OTEL_SERVICE_NAME: 'nexus-worker' }),
    ]);
    const client = await WebChatClient.connect({ url: gateway.url, token: TOKEN });
    try {
      // The first turn teaches two facts, so the second has memories to put into its prompt.
      expect((await client.ask('first', "I'm vegetarian and I live in Lisbon")).text).toBe(CHAT_REPLY);
      await expect
        .poll(() => metricValue(worker.url, 'nexus_worker_memory_extractions_total'), { timeout: 15_000 })
        .toBe(1);
      expect((await client.ask('second', 'I moved to Berlin')).text).toBe(CHAT_REPLY);
      await expect
        .poll(() => metricValue(worker.url, 'nexus_worker_memory_extractions_total'), { timeout: 15_000 })
        .toBe(2);
    } finally {
      await client.close();
    }
    // Both processes flush what they still hold when they stop.
    await Promise.all([gateway.stop(), worker.stop()]);

    const memorySteps = receiver.spans.filter((span) => span.name === 'nexus.memory_step');
    expect(memorySteps).toHaveLength(2);
    const step = memorySteps.find(
      (span) => (span.attributes['nexus.memory.memories_injected'] as number) > 0,
    );
    expect(step, 'the second turn injects what the first taught').toBeDefined();
    const trace = receiver.spans.filter((span) => span.traceId === step!.traceId);
    const byId = new Map(trace.map((span) => [span.spanId, span]));
    const one = (name: string, parent?: ReceivedSpan): ReceivedSpan => {
      const found = trace.filter(
        (span) => span.name === name && (parent === undefined || span.parentSpanId === parent.spanId),
      );
      expect(
        found.map((span) => span.name),
        `${name} under ${parent?.name ?? 'the trace'}`,
      ).toEqual([name]);
      return found[0]!;
    };

    const intake = one('nexus.intake');
    expect(intake.parentSpanId).toBe('');
    expect(intake.service).toBe('nexus-gateway');
    expect(intake.attributes).toMatchObject({ 'nexus.channel': 'web', 'nexus.intake.status': 'accepted' });
    expect(one('nexus.access', intake).attributes['nexus.access.action']).toBe('turn');
    const turn = one('nexus.turn', intake);
    expect(turn.attributes).toMatchObject({ 'nexus.turn.outcome': 'ok', 'nexus.turn.model_calls': 1 });
    expect(step!.parentSpanId).toBe(turn.spanId);
    expect(step!.attributes).toMatchObject({
      'nexus.memory.outcome': 'ok',
      'nexus.memory.scopes_missing': [],
      'nexus.memory.scopes_timed_out': [],
      'nexus.memory.memories_injected': 2,
    });
    // The memories come back as the person's standing facts (the `profile` part of the step).
    expect(step!.attributes['nexus.memory.scopes_answered']).toContain('profile');
    expect(step!.attributes['nexus.memory.memory_ids']).toHaveLength(2);
    expect(step!.attributes['nexus.memory.tokens_injected']).toBeGreaterThan(0);
    expect(one('nexus.delivery', turn).service).toBe('nexus-gateway');

    // The gateway→worker hop: the agent run is a child of the turn, on the worker.
    const run = one('nexus.job agent.run', turn);
    expect(run.service).toBe('nexus-worker');
    const underRun = (span: ReceivedSpan): boolean => {
      for (let at = byId.get(span.parentSpanId); at; at = byId.get(at.parentSpanId))
        if (at === run) return true;
      return false;
    };
    const modelCalls = trace.filter((span) => underRun(span) && span.attributes['gen_ai.request.model']);
    expect(modelCalls.length).toBeGreaterThan(0);
    expect(modelCalls.every((span) => span.service === 'nexus-worker')).toBe(true);
    expect(modelCalls.some((span) => (span.attributes['gen_ai.usage.output_tokens'] as number) > 0)).toBe(
      true,
    );
    expect(modelCalls.some((span) => span.attributes['gen_ai.response.finish_reasons'] !== undefined)).toBe(
      true,
    );

    // The extraction the turn queued: a child of the turn span, run by the worker, same trace.
    const extraction = one('nexus.job memory.extract', turn);
    expect(extraction.service).toBe('nexus-worker');

    // Log lines written in that trace carry its ids, on each process: the gateway's memory step
    // and the worker's extraction job name their own spans, so a log line leads to its trace.
    const linesOf = (output: readonly string[]) =>
      output.flatMap((line) => {
        try {
          return [JSON.parse(line) as { msg?: string; trace_id?: string; span_id?: string }];
        } catch {
          return [];
        }
      });
    const lineIn = (output: readonly string[], message: string) =>
      linesOf(output).find((line) => line.msg === message && line.trace_id === step!.traceId);
    expect(lineIn(gateway.output, 'memory context loaded')?.span_id).toBe(step!.spanId);
    expect(lineIn(worker.output, 'memory extraction done')?.span_id).toBe(extraction.spanId);

    // No span carries what people said or were told: not the message, the memory block or the reply.
    const exported = JSON.stringify(receiver.spans.map((span) => span.attributes));
    for (const privateText of ['Berlin', 'Lisbon', 'vegetarian', CHAT_REPLY])
      expect(exported, `"${privateText}" in an exported span`).not.toContain(privateText);

    // Every span of the trace hangs off the intake: nothing orphaned, nothing from another turn.
    for (const span of trace) {
      if (span === intake) continue;
      expect(byId.has(span.parentSpanId), `${span.name} has its parent in the trace`).toBe(true);
    }
  }, 90_000);
});
