import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import {
  type ChatCompletionRequest,
  type ScriptedModelServer,
  startScriptedModelServer,
} from '@nexus/testkit/llm';
import { WebChatClient } from '@nexus/testkit/web-chat';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../composition/create-logger.ts';
import { loadConfig } from '../config/load-config.ts';
import { type RunningGateway, startGateway } from '../start-gateway.ts';
import { isDecision, isExtraction, memoryAwareResponder } from '../testing/memory-test-support.ts';
import { type OtlpReceiver, startOtlpReceiver } from '../testing/otlp-receiver.ts';
import { type GatewayTracing, startTracing } from './start-tracing.ts';

// One process (role `all`) with tracing on and the JSON logger of production: the lines written
// inside a turn, its subagent and its extraction job carry the ids of the span they were written
// in, and the memory put into the main run's and the subagent's prompts is a generation.

const TOKEN = 'trace-log-token-0123456789';
const TASK = 'Find a vegetarian restaurant';
const MESSAGE = "I'm vegetarian and I live in Lisbon";
const REPLY = 'Try Tasca do Chico tonight.';
const lastUserOf = (request: ChatCompletionRequest) =>
  String(request.messages.findLast((message) => message.role === 'user')?.content ?? '');

interface LogLine {
  msg: string;
  trace_id?: string;
  span_id?: string;
  component?: string;
}

describe('trace ids in the log lines of a traced turn', () => {
  let model: ScriptedModelServer;
  let receiver: OtlpReceiver;
  let dataDir: string;
  let tracing: GatewayTracing | undefined;
  let gateway: RunningGateway;
  const lines: LogLine[] = [];

  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    model = await startScriptedModelServer();
    model.setResponder((request) => {
      if (isExtraction(request) || isDecision(request)) return memoryAwareResponder(request);
      if (lastUserOf(request) === TASK) return { text: 'Tasca do Chico.' };
      if (request.messages.some((message) => message.role === 'tool')) return { text: REPLY };
      return { toolCalls: [{ name: 'delegate', arguments: { task: TASK } }] };
    });
    dataDir = await mkdtemp(join(tmpdir(), 'nexus-trace-log-'));
    const config = loadConfig({
      env: {
        NEXUS_PORT: '0',
        NEXUS_DATA_DIR: dataDir,
        NEXUS_WEB_TOKEN: TOKEN,
        NEXUS_LOG_LEVEL: 'debug',
        NEXUS_MODEL_PROVIDER: 'openai-compatible',
        NEXUS_MODEL_BASE_URL: model.baseUrl,
        NEXUS_MODEL: 'scripted',
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      },
    });
    const destination = new PassThrough();
    let pending = '';
    destination.on('data', (chunk: Buffer) => {
      pending += chunk.toString('utf8');
      const complete = pending.split('\n');
      pending = complete.pop() ?? '';
      for (const line of complete) if (line) lines.push(JSON.parse(line) as LogLine);
    });
    const logger = createLogger({ ...config.log, pretty: false }, destination);
    tracing = await startTracing(config, 'all', logger);
    gateway = await startGateway({ config, logger, ...(tracing ? { tracing } : {}) });
  });
  afterAll(async () => {
    await gateway?.close();
    await tracing?.shutdown();
    await model?.close();
    await receiver?.close();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it('carries the trace id and span id of the span each line was written in', async () => {
    const client = await WebChatClient.connect({ url: gateway.url, token: TOKEN });
    try {
      expect((await client.ask('one', MESSAGE)).text).toBe(REPLY);
    } finally {
      await client.close();
    }
    await gateway.core.whenIdle();
    await expect
      .poll(() => lines.some((line) => line.msg === 'memory extraction done'), { timeout: 10_000 })
      .toBe(true);
    await tracing?.shutdown();

    const turn = receiver.spans.find((span) => span.name === 'nexus.turn')!;
    const spansOfTurn = new Map(
      receiver.spans.filter((span) => span.traceId === turn.traceId).map((span) => [span.spanId, span]),
    );
    const spanOfLine = (message: string) => {
      const line = lines.find((candidate) => candidate.msg === message);
      expect(line?.trace_id, message).toBe(turn.traceId);
      return spansOfTurn.get(line?.span_id ?? '');
    };
    // The turn's memory step, the subagent it delegated to, the extraction job it queued.
    expect(spanOfLine('memory context loaded')?.name).toBe('nexus.memory_step');
    expect(spanOfLine('subagent finished')?.attributes['gen_ai.tool.name']).toBe('delegate');
    expect(spanOfLine('memory extraction done')?.name).toBe('nexus.job memory.extract');
    // Written outside any span: no ids.
    const startup = lines.find((line) => line.msg === 'OpenTelemetry tracing on');
    expect(startup).toBeDefined();
    expect(startup).not.toHaveProperty('trace_id');
  });

  it('records the memory put into the turn’s and the subagent’s prompts as generations, without their text', () => {
    const turn = receiver.spans.find((span) => span.name === 'nexus.turn')!;
    const injections = receiver.spans.filter(
      (span) => span.traceId === turn.traceId && span.name === 'memory.context.inject',
    );
    expect(injections.map((span) => span.attributes['nexus.memory.for']).sort()).toEqual([
      'subagent',
      'turn',
    ]);
    const steps = receiver.spans.filter((span) => span.name === 'nexus.memory_step');
    for (const injection of injections) {
      expect(injection.attributes).toMatchObject({
        'langfuse.observation.type': 'generation',
        'gen_ai.operation.name': 'memory.context.inject',
      });
      // A child of the memory step that loaded it.
      expect(steps.map((step) => step.spanId)).toContain(injection.parentSpanId);
      const exported = JSON.stringify(injection.attributes);
      expect(exported).not.toContain(TASK);
      expect(exported).not.toContain('vegetarian');
    }
  });
});
