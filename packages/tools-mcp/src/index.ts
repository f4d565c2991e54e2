export { limitToolOutput } from './limit-tool-output.ts';
export {
  type McpServerConfig,
  type McpServerConfigInput,
  mcpServerConfigSchema,
  parseMcpServers,
} from './mcp-server-config.ts';
export type { McpServerState, McpServerStatus } from './mcp-server-connection.ts';
export {
  createMcpToolServers,
  type McpToolCallEvent,
  type McpToolOutcome,
  type McpToolServers,
  type McpToolServersOptions,
} from './mcp-tool-servers.ts';
