import type { OutsideTools, Schedules } from '@nexus/core';
import type { Logger } from '@nexus/protocol';
import type { McpServerStatus, McpToolServers } from '@nexus/tools-mcp';
import type { GatewayConfig } from '../config/gateway-config.ts';
import type { ToolMetrics } from '../metrics/tool-metrics.ts';
import { mayUseOutsideTools } from './may-use-outside-tools.ts';

export interface GatewayTools {
  /** For the core: the MCP tools a turn may use, after the owner-only policy. */
  outsideTools: OutsideTools;
  /** Starts connecting MCP servers in the background. */
  start(): void;
  mcpStatus(): McpServerStatus[];
  close(): Promise<void>;
}

/**
 * MCP servers from settings (connected in the background, offered under the access policy) and
 * `schedule`. The MCP client libraries (about 60 MB of RSS) are imported only when a server is
 * configured.
 */
export async function createGatewayTools(options: {
  config: GatewayConfig;
  logger: Logger;
  metrics: ToolMetrics;
  /** Gives every turn the `schedule` tool, bound to the person speaking. */
  schedules?: Schedules;
}): Promise<GatewayTools> {
  const { config, logger, metrics, schedules } = options;
  const servers: McpToolServers | undefined =
    config.tools.mcpServers.length > 0
      ? (await import('@nexus/tools-mcp')).createMcpToolServers({
          servers: config.tools.mcpServers,
          logger,
          callTimeoutMs: config.tools.callTimeoutMs,
          maxOutputChars: config.tools.maxOutputChars,
          onToolCall: (event) => metrics.observeToolCall(event.tool, event.outcome),
        })
      : undefined;
  const policy = {
    ...(config.tools.allowedPeople ? { allowedPeople: config.tools.allowedPeople } : {}),
    inGroups: config.tools.inGroups,
  };
  return {
    outsideTools: ({ intent, conversationKey }) => {
      // Reminders are the person's own: everyone with a turn may set them (access is checked
      // again when one is due). MCP tools reach other systems: owner-only unless allowed.
      const mcp =
        servers && mayUseOutsideTools(intent, policy)
          ? servers.tools({ conversationId: conversationKey })
          : {};
      const tools = schedules ? { ...mcp, schedule: schedules.toolFor(intent) } : mcp;
      return Object.keys(tools).length > 0 ? tools : undefined;
    },
    start: () => servers?.start(),
    mcpStatus: () => servers?.status() ?? [],
    close: async () => {
      await servers?.close();
    },
  };
}
