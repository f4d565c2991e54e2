import type { Logger } from '@nexus/protocol';
import type { ToolSet } from 'ai';
import { modelTextOf, toolOutputOf } from './limit-tool-output.ts';
import type { McpServerConfig } from './mcp-server-config.ts';
import { McpServerConnection, type McpServerStatus } from './mcp-server-connection.ts';

export type McpToolOutcome = 'ok' | 'error' | 'timeout';

export interface McpToolCallEvent {
  server: string;
  tool: string;
  outcome: McpToolOutcome;
  durationMs: number;
}

export interface McpToolServersOptions {
  servers: McpServerConfig[];
  logger: Logger;
  /** A call that takes longer is abandoned and the model is told so. */
  callTimeoutMs: number;
  /** Longer tool output is cut, with a note saying how much was left out. */
  maxOutputChars: number;
  /** How long one connection attempt (start + initialize) may take. Default 10 s. */
  connectTimeoutMs?: number;
  /** First retry delay after a failed attempt; doubles up to `retryMaxDelayMs`. Default 1 s / 60 s. */
  retryInitialDelayMs?: number;
  retryMaxDelayMs?: number;
  onToolCall?: (event: McpToolCallEvent) => void;
  now?: () => number;
}

export interface McpToolServers {
  /** Starts connecting every server in the background; returns at once. */
  start(): void;
  /** The tools of the servers connected now, each call bounded, logged with `conversationId`. */
  tools(context: { conversationId: string }): ToolSet;
  status(): McpServerStatus[];
  close(): Promise<void>;
}

/** Outside tools from MCP servers for the agent: never blocks a start or a turn on a server. */
export function createMcpToolServers(options: McpToolServersOptions): McpToolServers {
  const now = options.now ?? Date.now;
  const connections = options.servers.map(
    (server) =>
      new McpServerConnection({
        server,
        logger: options.logger,
        connectTimeoutMs: options.connectTimeoutMs ?? 10_000,
        retryInitialDelayMs: options.retryInitialDelayMs ?? 1_000,
        retryMaxDelayMs: options.retryMaxDelayMs ?? 60_000,
      }),
  );
  return {
    start() {
      for (const connection of connections) connection.start();
    },
    tools({ conversationId }) {
      const tools: ToolSet = {};
      for (const connection of connections) {
        for (const [name, definition] of Object.entries(connection.tools())) {
          tools[name] = bounded(name, definition, {
            server: connection.name,
            conversationId,
            now,
            ...options,
          });
        }
      }
      return tools;
    },
    status: () => connections.map((connection) => connection.status()),
    async close() {
      await Promise.all(connections.map((connection) => connection.close()));
    },
  };
}

type ToolDefinition = ToolSet[string];

function bounded(
  name: string,
  definition: ToolDefinition,
  context: McpToolServersOptions & { server: string; conversationId: string; now: () => number },
): ToolDefinition {
  const execute = definition.execute;
  if (!execute) return definition;
  const { logger, callTimeoutMs, maxOutputChars } = context;
  return {
    ...definition,
    // The model sees the bounded text only; binary parts go to the person (see McpToolOutput).
    toModelOutput: ({ output }: { output: unknown }) => ({ type: 'text', value: modelTextOf(output) }),
    execute: async (input: unknown, callOptions: Parameters<typeof execute>[1]) => {
      const startedAt = context.now();
      const controller = new AbortController();
      const outer = callOptions.abortSignal;
      const forward = () => controller.abort(outer?.reason);
      outer?.addEventListener('abort', forward, { once: true });
      let timer: ReturnType<typeof setTimeout> | undefined;
      const timedOut = new Promise<'timeout'>((resolve) => {
        timer = setTimeout(() => {
          resolve('timeout');
          controller.abort(
            new DOMException(`The tool ${name} took longer than ${callTimeoutMs} ms.`, 'TimeoutError'),
          );
        }, callTimeoutMs);
      });
      let outcome: McpToolOutcome = 'ok';
      try {
        const result = await Promise.race([
          Promise.resolve(execute(input, { ...callOptions, abortSignal: controller.signal })),
          timedOut,
        ]);
        if (result === 'timeout') {
          outcome = 'timeout';
          return `The tool ${name} did not answer within ${callTimeoutMs} ms; it was abandoned.`;
        }
        if ((result as { isError?: boolean } | undefined)?.isError) outcome = 'error';
        return toolOutputOf(result, maxOutputChars);
      } catch (error) {
        if (outer?.aborted) throw error;
        outcome = 'error';
        logger.warn(
          { tool: name, conversationId: context.conversationId, err: error },
          'MCP tool call failed',
        );
        return `The tool ${name} failed: ${error instanceof Error ? error.message : String(error)}`;
      } finally {
        clearTimeout(timer);
        outer?.removeEventListener('abort', forward);
        const durationMs = context.now() - startedAt;
        logger.info(
          {
            tool: name,
            mcpServer: context.server,
            conversationId: context.conversationId,
            outcome,
            durationMs,
          },
          'tool call',
        );
        context.onToolCall?.({ server: context.server, tool: name, outcome, durationMs });
      }
    },
  } as ToolDefinition;
}
