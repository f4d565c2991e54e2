import { silentLogger } from '@nexus/protocol';
import { startTestMcpHttpServer, TEST_MCP_STDIO_SCRIPT, type TestMcpHttpServer } from '@nexus/testkit/mcp';
import type { ToolSet } from 'ai';
import { afterEach, describe, expect, it } from 'vitest';
import { parseMcpServers } from './mcp-server-config.ts';
import { createMcpToolServers, type McpToolCallEvent, type McpToolServers } from './mcp-tool-servers.ts';

const open: McpToolServers[] = [];
let http: TestMcpHttpServer | undefined;

afterEach(async () => {
  await Promise.all(open.splice(0).map((servers) => servers.close()));
  await http?.close();
  http = undefined;
});

async function connected(servers: McpToolServers, name: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (servers.status().find((status) => status.name === name)?.state !== 'connected') {
    if (Date.now() > deadline)
      throw new Error(`${name} never connected: ${JSON.stringify(servers.status())}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

function call(tools: ToolSet, name: string, input: unknown): Promise<unknown> {
  const execute = tools[name]?.execute;
  if (!execute) throw new Error(`no tool ${name}`);
  return Promise.resolve(execute(input, { toolCallId: 'call-1', messages: [] } as never));
}

describe.each(['stdio', 'http'] as const)('MCP tool servers over %s', (transport) => {
  async function start(extra: { tools?: string[]; callTimeoutMs?: number } = {}) {
    const events: McpToolCallEvent[] = [];
    let server: unknown;
    if (transport === 'stdio') {
      server = { name: 'shop', transport, command: process.execPath, args: [TEST_MCP_STDIO_SCRIPT] };
    } else {
      http = await startTestMcpHttpServer();
      server = { name: 'shop', transport, url: http.url, headers: { Authorization: 'Bearer s3cret' } };
    }
    const servers = createMcpToolServers({
      servers: parseMcpServers(
        [{ ...(server as object), ...(extra.tools ? { tools: extra.tools } : {}) }],
        'test',
      ),
      logger: silentLogger,
      callTimeoutMs: extra.callTimeoutMs ?? 5_000,
      maxOutputChars: 100,
      onToolCall: (event) => events.push(event),
    });
    open.push(servers);
    servers.start();
    await connected(servers, 'shop');
    return { servers, events };
  }

  it('offers the allowed tools and calls them through the real server', async () => {
    const { servers, events } = await start({ tools: ['lookup_order', 'hang', 'long_text'] });
    const tools = servers.tools({ conversationId: 'c1' });
    expect(Object.keys(tools).sort()).toEqual(['shop__hang', 'shop__long_text', 'shop__lookup_order']);
    expect(await call(tools, 'shop__lookup_order', { orderId: 'A17' })).toBe(
      'Order A17: shipped on 3 March, arriving Friday',
    );
    expect(await call(tools, 'shop__lookup_order', { orderId: 'Z9' })).toBe('Tool error: No order Z9.');
    expect(events.map((event) => event.outcome)).toEqual(['ok', 'error']);
    if (http) expect(http.authorizations).toContain('Bearer s3cret');
  });

  it('cuts long output with a note and abandons a call that hangs', async () => {
    const { servers, events } = await start({ callTimeoutMs: 300 });
    const tools = servers.tools({ conversationId: 'c1' });
    const long = String(await call(tools, 'shop__long_text', { characters: 5000 }));
    expect(long).toBe(`${'x'.repeat(100)}\n[output truncated: 4900 of 5000 characters left out]`);
    expect(await call(tools, 'shop__hang', {})).toBe(
      'The tool shop__hang did not answer within 300 ms; it was abandoned.',
    );
    expect(events.at(-1)).toMatchObject({ tool: 'shop__hang', outcome: 'timeout' });
    // The connection survives an abandoned call.
    expect(await call(tools, 'shop__lookup_order', { orderId: 'B22' })).toBe(
      'Order B22: waiting for payment',
    );
  });
});

describe('an MCP server that is not there', () => {
  it('never blocks start, reports down with the reason and keeps retrying', async () => {
    const servers = createMcpToolServers({
      servers: parseMcpServers([{ name: 'gone', transport: 'http', url: 'http://127.0.0.1:9/mcp' }], 'test'),
      logger: silentLogger,
      callTimeoutMs: 1000,
      maxOutputChars: 100,
      retryInitialDelayMs: 20,
      retryMaxDelayMs: 40,
    });
    open.push(servers);
    servers.start();
    expect(servers.tools({ conversationId: 'c1' })).toEqual({});
    const deadline = Date.now() + 5_000;
    while ((servers.status()[0]?.failedAttempts ?? 0) < 3 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(servers.status()[0]).toMatchObject({
      name: 'gone',
      state: expect.stringMatching(/down|connecting/),
    });
    expect(servers.status()[0]?.failedAttempts).toBeGreaterThanOrEqual(3);
    expect(servers.status()[0]?.lastError).toBeTruthy();
  });

  it('refuses a bad server list with a clear error', () => {
    expect(() =>
      parseMcpServers([{ name: 'Bad Name', transport: 'stdio', command: 'x' }], 'NEXUS_MCP_SERVERS'),
    ).toThrow(/NEXUS_MCP_SERVERS: invalid MCP server list/);
    expect(() =>
      parseMcpServers(
        [
          { name: 'a', transport: 'stdio', command: 'x' },
          { name: 'a', transport: 'http', url: 'http://h/mcp' },
        ],
        'cfg',
      ),
    ).toThrow(/listed twice/);
  });
});
