import {
  type ChatCompletionRequest,
  type ScriptedModelServer,
  type ScriptedResponse,
  startScriptedModelServer,
} from '@nexus/testkit/llm';
import { startTestMcpHttpServer, TEST_MCP_STDIO_SCRIPT, type TestMcpHttpServer } from '@nexus/testkit/mcp';
import { type FakeTelegram, startFakeTelegram } from '@nexus/testkit/telegram';
import { WebChatClient } from '@nexus/testkit/web-chat';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway } from '../testing/test-gateway.ts';

// MCP tools end to end: real MCP servers (the official SDK, one over stdio, one over Streamable
// HTTP), the real agent on the scripted model, the web chat and Telegram's fake Bot API.

let model: ScriptedModelServer;
let telegram: FakeTelegram;
let mcpHttp: TestMcpHttpServer;
let gateway: Awaited<ReturnType<typeof startTestGateway>>;
const clients: WebChatClient[] = [];

const toolNamesOf = (request: ChatCompletionRequest) =>
  (request.tools ?? []).map((tool) => (tool as { function: { name: string } }).function.name);

/** Calls the tool the message names (`use <tool> <json>`) once, then repeats what it returned. */
function responder(request: ChatCompletionRequest): ScriptedResponse {
  const lastUser = request.messages.findLastIndex((message) => message.role === 'user');
  const asked = String(request.messages[lastUser]?.content ?? '');
  const results = request.messages
    .slice(lastUser)
    .filter((message) => message.role === 'tool')
    .map((message) =>
      typeof message.content === 'string' ? message.content : JSON.stringify(message.content),
    );
  if (results.length > 0) return { text: `Found: ${results.join(' ')}` };
  const wanted = /use (\S+) (.*)$/.exec(asked);
  if (wanted?.[1] && toolNamesOf(request).includes(wanted[1]))
    return { toolCalls: [{ name: wanted[1], arguments: wanted[2] ?? '{}' }] };
  return { text: 'No tool for that.' };
}

async function metric(sample: string): Promise<number> {
  const text = await (await fetch(`${gateway.url}/metrics`)).text();
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${sample} `));
  return line ? Number(line.slice(sample.length + 1)) : 0;
}

beforeAll(async () => {
  model = await startScriptedModelServer();
  model.setResponder(responder);
  telegram = await startFakeTelegram();
  mcpHttp = await startTestMcpHttpServer();
  const servers = [
    { name: 'shop', transport: 'stdio', command: process.execPath, args: [TEST_MCP_STDIO_SCRIPT] },
    {
      name: 'crm',
      transport: 'http',
      url: mcpHttp.url,
      headers: { Authorization: 'Bearer crm-secret' },
      tools: ['lookup_order', 'hang', 'draw_chart'],
    },
  ];
  gateway = await startTestGateway({
    modelBaseUrl: model.baseUrl,
    env: {
      NEXUS_MCP_SERVERS: JSON.stringify(servers),
      NEXUS_MCP_CALL_TIMEOUT_MS: '800',
      NEXUS_MCP_ALLOWED_PEOPLE: 'telegram:11',
      NEXUS_TELEGRAM_BOT_TOKEN: telegram.token,
      NEXUS_TELEGRAM_API_ROOT: telegram.apiRoot,
      NEXUS_TELEGRAM_DM_POLICY: 'open',
    },
  });
  const deadline = Date.now() + 15_000;
  while ((await toolServerStates()).join() !== 'connected,connected') {
    if (Date.now() > deadline) throw new Error(`MCP servers did not connect: ${await toolServerStates()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
});

/** The state of each MCP server as the web admin view reads it from `/api/channels`. */
async function toolServerStates(): Promise<string[]> {
  const response = await fetch(`${gateway.url}/api/channels`, {
    headers: { authorization: `Bearer ${gateway.token}` },
  });
  const body = (await response.json()) as { toolServers: { state: string }[] };
  return body.toolServers.map((server) => server.state);
}

afterAll(async () => {
  for (const client of clients) await client.close();
  await gateway?.dispose();
  await Promise.all([telegram?.close(), model?.close(), mcpHttp?.close()]);
});

async function webClient(clientId: string): Promise<WebChatClient> {
  const client = await WebChatClient.connect({ url: gateway.url, token: gateway.token, clientId });
  clients.push(client);
  return client;
}

async function telegramReply(chatId: number): Promise<string> {
  const before = telegram.botMessages(chatId).length;
  await telegram.waitFor(() => (telegram.botMessages(chatId).length > before ? true : undefined), {
    timeoutMs: 15_000,
  });
  // The reply streams as edits of one message: read it once the turn is over.
  await gateway.core.whenIdle();
  return telegram.botMessages(chatId).at(-1)?.text ?? '';
}

describe('MCP tools through the gateway', () => {
  it('the web chat calls tools of a stdio and an HTTP server, and only the allowed ones are offered', async () => {
    const client = await webClient('owner');
    const stdio = await client.ask('c1', 'use shop__lookup_order {"orderId":"A17"}');
    expect(stdio.text).toBe('Found: Order A17: shipped on 3 March, arriving Friday');
    const http = await client.ask('c1', 'use crm__lookup_order {"orderId":"B22"}');
    expect(http.text).toBe('Found: Order B22: waiting for payment');
    expect(mcpHttp.authorizations).toContain('Bearer crm-secret');
    const offered = toolNamesOf(model.chatRequests().at(-1)?.body as ChatCompletionRequest);
    expect(offered).toContain('shop__secret_admin');
    expect(offered).not.toContain('crm__secret_admin');
    expect(await metric('nexus_tool_calls_total{tool="shop__lookup_order",outcome="ok"}')).toBe(1);
    expect(await metric('nexus_tool_calls_total{tool="crm__lookup_order",outcome="ok"}')).toBe(1);
  });

  it('a tool that hangs is abandoned at the call timeout and the turn still answers', async () => {
    const client = await webClient('owner');
    const reply = await client.ask('c2', 'use crm__hang {}');
    expect(reply.text).toBe('Found: The tool crm__hang did not answer within 800 ms; it was abandoned.');
    // The answer quotes the tool timeout, so the call timeout (not the run's 120 s limit) ended the wait.
    expect(await metric('nexus_tool_calls_total{tool="crm__hang",outcome="timeout"}')).toBe(1);
  });

  it('on Telegram an allowed person gets the tools and a stranger gets none', async () => {
    telegram.pushMessage({
      chat: { id: 11, type: 'private', firstName: 'Ana' },
      from: { id: 11, is_bot: false, first_name: 'Ana' },
      text: 'use crm__lookup_order {"orderId":"A17"}',
    });
    expect(await telegramReply(11)).toBe('Found: Order A17: shipped on 3 March, arriving Friday');

    telegram.pushMessage({
      chat: { id: 22, type: 'private', firstName: 'Ben' },
      from: { id: 22, is_bot: false, first_name: 'Ben' },
      text: 'use crm__lookup_order {"orderId":"A17"}',
    });
    expect(await telegramReply(22)).toBe('No tool for that.');
    const strangers = model.chatRequests().at(-1)?.body as ChatCompletionRequest;
    expect(toolNamesOf(strangers).filter((name) => name.includes('__'))).toEqual([]);
  });
});

describe('MCP tool images', () => {
  it("reach the person as a Telegram photo while the model only reads the tool's text", async () => {
    telegram.pushMessage({
      chat: { id: 11, type: 'private', firstName: 'Ana' },
      from: { id: 11, is_bot: false, first_name: 'Ana' },
      text: 'use crm__draw_chart {"title":"sales"}',
    });
    await telegramReply(11);
    const texts = telegram.botMessages(11).filter((message) => !message.media);
    expect(texts.at(-1)?.text).toBe(
      'Found: Chart "sales" drawn.\n[image image/png: sent to the person as a file]',
    );
    const photo = telegram.botMessages(11).find((message) => message.media?.type === 'photo');
    expect(photo?.media?.bytes.subarray(1, 4)).toEqual(new TextEncoder().encode('PNG'));
    // What went back to the model for the tool call: the text, not 100+ characters of base64.
    const followUp = model.chatRequests().at(-1)?.body as ChatCompletionRequest;
    const toolMessage = followUp.messages.find((message) => message.role === 'tool');
    expect(JSON.stringify(toolMessage?.content)).not.toMatch(/iVBORw0KGgo/u);
  });
});
