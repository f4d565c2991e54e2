import { NexusError } from '@nexus/protocol';
import { z } from 'zod';

const NAME_PATTERN = /^[a-z0-9][a-z0-9_-]{0,31}$/;

const common = {
  /** Short name: prefixes the server's tools (`<name>__<tool>`) and names it in status and logs. */
  name: z.string().regex(NAME_PATTERN, 'lower-case letters, digits, "_" or "-", at most 32'),
  /** Only these tools are offered to the model; absent means every tool the server lists. */
  tools: z.array(z.string().min(1)).optional(),
};

export const mcpServerConfigSchema = z.discriminatedUnion('transport', [
  z.object({
    ...common,
    transport: z.literal('stdio'),
    command: z.string().min(1),
    args: z.array(z.string()).default([]),
    env: z.record(z.string(), z.string()).default({}),
    cwd: z.string().optional(),
  }),
  z.object({
    ...common,
    transport: z.literal('http'),
    url: z.url(),
    headers: z.record(z.string(), z.string()).default({}),
  }),
]);

/** One MCP tool server: a command Nexus starts (stdio) or a Streamable HTTP endpoint. */
export type McpServerConfig = z.infer<typeof mcpServerConfigSchema>;
export type McpServerConfigInput = z.input<typeof mcpServerConfigSchema>;

/** Validates a list of server definitions; names must be unique. */
export function parseMcpServers(value: unknown, source: string): McpServerConfig[] {
  const parsed = z.array(mcpServerConfigSchema).safeParse(value);
  if (!parsed.success) {
    throw new NexusError({
      code: 'invalid_config',
      message: `${source}: invalid MCP server list: ${z.prettifyError(parsed.error)}`,
      cause: parsed.error,
    });
  }
  const seen = new Set<string>();
  for (const server of parsed.data) {
    if (seen.has(server.name)) {
      throw new NexusError({
        code: 'invalid_config',
        message: `${source}: MCP server '${server.name}' is listed twice.`,
      });
    }
    seen.add(server.name);
  }
  return parsed.data;
}
