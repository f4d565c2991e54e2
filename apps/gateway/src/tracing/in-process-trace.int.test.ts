import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type ChatCompletionRequest,
  type ScriptedModelServer,
  startScriptedModelServer,
} from '@nexus/testkit/llm';
import { WebChatClient } from '@nexus/testkit/web-chat';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../config/load-config.ts';
import { type RunningGateway, startGateway } from '../start-gateway.ts';
import { type OtlpReceiver, type ReceivedSpan, startOtlpReceiver } from '../testing/otlp-receiver.ts';
import { type GatewayTracing, startTracing } from './start-tracing.ts';

// One process (role `all`, no Redis): the model call, the tool call and the subagent it starts are
// spans of the turn, below `nexus.turn`, exported through the same OTLP/HTTP path as in production.

const TOKEN = 'trace-test-token-0123456789';
const SUBAGENT_ANSWER = 'Tasca do Chico, vegetarian options.';
const REPLY = 'Try Tasca do Chico tonight.';

const TASK = 'Find a vegetarian restaurant';
const lastUserOf = (request: ChatCompletionRequest) =>
  String(request.messages.findLast((message) => message.role === 'user')?.content ?? '');

describe('a turn with a tool call and a subagent, traced in one process', () => {
  let model: ScriptedModelServer;
  let receiver: OtlpReceiver;
  let dataDir: string;
  let tracing: GatewayTracing | undefined;
  let gateway: RunningGateway;

  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    model = await startScriptedModelServer();
    model.setResponder((request) => {
      if (lastUserOf(request) === TASK) return { text: SUBAGENT_ANSWER };
      if (request.messages.some((message) => message.role === 'tool')) return { text: REPLY };
      return { toolCalls: [{ name: 'delegate', arguments: { task: TASK } }] };
    });
    dataDir = await mkdtemp(join(tmpdir(), 'nexus-trace-'));
    const config = loadConfig({
      env: {
        NEXUS_PORT: '0',
        NEXUS_DATA_DIR: dataDir,
        NEXUS_WEB_TOKEN: TOKEN,
        NEXUS_LOG_LEVEL: 'silent',
        NEXUS_MEMORY_EXTRACTION: 'false',
        NEXUS_MODEL_PROVIDER: 'openai-compatible',
        NEXUS_MODEL_BASE_URL: model.baseUrl,
        NEXUS_MODEL: 'scripted',
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
        OTEL_SERVICE_NAME: 'nexus-all',
      },
    });
    const silent = { debug() {}, info() {}, warn() {}, error() {}, child: () => silent };
    tracing = await startTracing(config, 'all', silent);
    gateway = await startGateway({ config, ...(tracing ? { tracing } : {}) });
  });
  afterAll(async () => {
    await gateway?.close();
    await tracing?.shutdown();
    await model?.close();
    await receiver?.close();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it('puts the model calls, the delegate tool call and the subagent run under nexus.turn', async () => {
    expect(tracing).toBeDefined();
    const client = await WebChatClient.connect({ url: gateway.url, token: TOKEN });
    try {
      expect((await client.ask('one', 'Where should I eat tonight?')).text).toBe(REPLY);
    } finally {
      await client.close();
    }
    await gateway.core.whenIdle();
    await tracing?.shutdown();

    const turn = receiver.spans.find((span) => span.name === 'nexus.turn');
    expect(turn).toBeDefined();
    const trace = receiver.spans.filter((span) => span.traceId === turn!.traceId);
    const byId = new Map(trace.map((span) => [span.spanId, span]));
    const ancestors = (span: ReceivedSpan): ReceivedSpan[] => {
      const chain: ReceivedSpan[] = [];
      for (let at = byId.get(span.parentSpanId); at; at = byId.get(at.parentSpanId)) chain.push(at);
      return chain;
    };
    const toolSpans = trace.filter((span) => span.attributes['gen_ai.tool.name'] === 'delegate');
    expect(toolSpans).toHaveLength(1);
    const tool = toolSpans[0]!;
    expect(ancestors(tool)).toContain(turn);
    // The subagent's own agent run nests inside the tool call that started it.
    const subagentRuns = trace.filter(
      (span) => span.name.startsWith('invoke_agent') && ancestors(span).includes(tool),
    );
    expect(subagentRuns).toHaveLength(1);
    const modelCalls = trace.filter((span) => span.attributes['gen_ai.operation.name'] === 'chat');
    // Main run: the call that asked for the tool and the one that answered; the subagent's one.
    expect(modelCalls).toHaveLength(3);
    for (const call of modelCalls) expect(ancestors(call)).toContain(turn);
    expect(trace.every((span) => span.service === 'nexus-all')).toBe(true);
  });
});
