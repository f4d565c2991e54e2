import { createMCPClient, type MCPClient, type MCPTransport } from '@ai-sdk/mcp';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { backoffDelay } from '@nexus/limits-kit';
import type { Logger } from '@nexus/protocol';
import type { ToolSet } from 'ai';
import type { McpServerConfig } from './mcp-server-config.ts';
import { watchTransportClose } from './watch-transport-close.ts';

export type McpServerState = 'connecting' | 'connected' | 'down' | 'closed';

/** What `nexus doctor` and the web status view show of one server. */
export interface McpServerStatus {
  name: string;
  transport: 'stdio' | 'http';
  state: McpServerState;
  /** The offered tools (after the allowlist), as the model sees their names. */
  tools: string[];
  /** Why the last connection attempt or the connection failed. */
  lastError?: string;
  /** Connection attempts since the last success. */
  failedAttempts: number;
}

export interface McpServerConnectionOptions {
  server: McpServerConfig;
  logger: Logger;
  connectTimeoutMs: number;
  retryInitialDelayMs: number;
  retryMaxDelayMs: number;
}

/**
 * One server, kept connected in the background: a failed attempt or a dropped connection is
 * retried with exponential backoff until `close`. Nothing here ever waits for the server on
 * behalf of a caller: `tools()` returns what the last good connection listed, or nothing.
 */
export class McpServerConnection {
  readonly #options: McpServerConnectionOptions;
  #state: McpServerState = 'connecting';
  #client: MCPClient | undefined;
  #tools: ToolSet = {};
  #lastError: string | undefined;
  #failedAttempts = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #closed = false;

  constructor(options: McpServerConnectionOptions) {
    this.#options = options;
  }

  get name(): string {
    return this.#options.server.name;
  }

  start(): void {
    void this.#connect();
  }

  tools(): ToolSet {
    return this.#state === 'connected' ? this.#tools : {};
  }

  status(): McpServerStatus {
    return {
      name: this.name,
      transport: this.#options.server.transport,
      state: this.#state,
      tools: Object.keys(this.tools()),
      ...(this.#lastError ? { lastError: this.#lastError } : {}),
      failedAttempts: this.#failedAttempts,
    };
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#state = 'closed';
    clearTimeout(this.#timer);
    const client = this.#client;
    this.#client = undefined;
    await client?.close().catch(() => undefined);
  }

  async #connect(): Promise<void> {
    if (this.#closed) return;
    this.#state = 'connecting';
    const { server, logger } = this.#options;
    let client: MCPClient | undefined;
    try {
      const transport = watchTransportClose(createTransport(server), () => this.#lost(client));
      client = await createMCPClient({
        transport,
        initializationOptions: { timeout: this.#options.connectTimeoutMs },
        onUncaughtError: (error) => logger.warn({ mcpServer: server.name, err: error }, 'MCP server error'),
      });
      const listed = await client.tools();
      if (this.#closed) {
        await client.close();
        return;
      }
      this.#client = client;
      this.#tools = allowedTools(server, listed as ToolSet);
      this.#state = 'connected';
      this.#failedAttempts = 0;
      this.#lastError = undefined;
      logger.info({ mcpServer: server.name, tools: Object.keys(this.#tools) }, 'MCP server connected');
    } catch (error) {
      await client?.close().catch(() => undefined);
      this.#failedAttempts += 1;
      this.#lastError = error instanceof Error ? error.message : String(error);
      this.#retryLater();
      logger.warn(
        { mcpServer: server.name, err: error, attempt: this.#failedAttempts },
        'MCP server could not connect; retrying in the background',
      );
    }
  }

  #lost(client: MCPClient | undefined): void {
    if (this.#closed || client === undefined || client !== this.#client) return;
    this.#client = undefined;
    this.#lastError = 'the connection closed';
    this.#options.logger.warn({ mcpServer: this.name }, 'MCP server connection closed; reconnecting');
    this.#retryLater();
  }

  #retryLater(): void {
    if (this.#closed) return;
    this.#state = 'down';
    const { retryInitialDelayMs, retryMaxDelayMs } = this.#options;
    // Without jitter: one gateway reconnecting to its own tool server has no herd to spread.
    const attempt = Math.max(0, this.#failedAttempts - 1);
    const delay = backoffDelay({
      attempt,
      initialMs: retryInitialDelayMs,
      maxMs: retryMaxDelayMs,
      jitter: 0,
    });
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => void this.#connect(), delay);
    this.#timer.unref?.();
  }
}

function createTransport(server: McpServerConfig): MCPTransport {
  if (server.transport === 'stdio') {
    return new StdioClientTransport({
      command: server.command,
      args: server.args,
      // The SDK's safe default environment (PATH, HOME…) plus the configured variables only.
      env: { ...getDefaultEnvironment(), ...server.env },
      ...(server.cwd ? { cwd: server.cwd } : {}),
      stderr: 'ignore',
    }) as MCPTransport;
  }
  return new StreamableHTTPClientTransport(new URL(server.url), {
    requestInit: { headers: server.headers },
  }) as unknown as MCPTransport;
}

/** The server's tools after its allowlist, named `<server>__<tool>` so two servers never clash. */
function allowedTools(server: McpServerConfig, listed: ToolSet): ToolSet {
  const allow = server.tools ? new Set(server.tools) : undefined;
  const tools: ToolSet = {};
  for (const [name, definition] of Object.entries(listed)) {
    if (allow && !allow.has(name)) continue;
    tools[`${server.name}__${name.replace(/[^A-Za-z0-9_-]/g, '_')}`.slice(0, 64)] = definition;
  }
  return tools;
}
