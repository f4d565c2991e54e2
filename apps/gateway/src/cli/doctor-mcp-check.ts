import { silentLogger } from '@nexus/protocol';
import type { GatewayConfig } from '../config/gateway-config.ts';
import type { DoctorLine } from './doctor-line.ts';

const PROBE_MS = 5_000;

/**
 * One line per MCP server: connects each once (as the gateway would, with the same allowlist)
 * and lists the tools it offers. A server that is down is a warning, not a failure: the gateway
 * starts without it and keeps retrying in the background.
 */
export async function checkMcpServers(config: GatewayConfig): Promise<DoctorLine[]> {
  if (config.tools.mcpServers.length === 0) return [];
  // The MCP client libraries load only when a server is configured.
  const { createMcpToolServers } = await import('@nexus/tools-mcp');
  const servers = createMcpToolServers({
    servers: config.tools.mcpServers,
    logger: silentLogger,
    callTimeoutMs: config.tools.callTimeoutMs,
    maxOutputChars: config.tools.maxOutputChars,
    connectTimeoutMs: PROBE_MS,
    // One attempt each: the probe reports, it does not wait for a server to come back.
    retryInitialDelayMs: 60_000,
  });
  try {
    servers.start();
    const deadline = Date.now() + PROBE_MS;
    while (servers.status().some((status) => status.state === 'connecting') && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    return servers.status().map((status): DoctorLine => {
      const subject = `mcp ${status.name}`;
      if (status.state === 'connected') {
        return {
          status: status.tools.length > 0 ? 'ok' : 'warn',
          subject,
          message: `connected over ${status.transport}, ${status.tools.length} tool${status.tools.length === 1 ? '' : 's'}${status.tools.length > 0 ? `: ${status.tools.join(', ')}` : ''}`,
          ...(status.tools.length === 0
            ? { fix: 'check the server’s "tools" allowlist in NEXUS_MCP_SERVERS against the tools it lists' }
            : {}),
        };
      }
      return {
        status: 'warn',
        subject,
        message: `cannot connect over ${status.transport} (${status.lastError ?? 'no answer within 5 s'}); the gateway starts without it and keeps retrying`,
        fix:
          status.transport === 'stdio'
            ? 'check the server’s command, args and env in NEXUS_MCP_SERVERS'
            : 'check the server’s url and headers in NEXUS_MCP_SERVERS, and that it is running',
      };
    });
  } finally {
    await servers.close();
  }
}
