import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TEST_MCP_STDIO_SCRIPT } from '@nexus/testkit/mcp';
import { afterEach, describe, expect, it } from 'vitest';
import { doctorCommand } from './doctor-command.ts';

let dataDir: string | undefined;
afterEach(async () => {
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

describe('nexus doctor and MCP servers', () => {
  it('lists a server that answers with its tools and warns about one that does not, read from NEXUS_MCP_SERVERS_FILE', async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'nexus-doctor-mcp-'));
    const serversFile = join(dataDir, 'mcp-servers.json');
    await writeFile(
      serversFile,
      JSON.stringify([
        {
          name: 'shop',
          transport: 'stdio',
          command: process.execPath,
          args: [TEST_MCP_STDIO_SCRIPT],
          tools: ['lookup_order'],
        },
        { name: 'gone', transport: 'http', url: 'http://127.0.0.1:9/mcp' },
      ]),
    );
    let stdout = '';
    const code = await doctorCommand({
      config: { env: { NEXUS_DATA_DIR: join(dataDir, 'data'), NEXUS_MCP_SERVERS_FILE: serversFile } },
      output: { out: (text) => (stdout += text), error: () => {} },
    });
    expect(stdout).toContain('✓ mcp shop: connected over stdio, 1 tool: shop__lookup_order\n');
    expect(stdout).toMatch(
      /! mcp gone: cannot connect over http \(.+\); the gateway starts without it and keeps retrying\n {4}fix: check the server’s url and headers in NEXUS_MCP_SERVERS, and that it is running/,
    );
    expect(code).toBe(0);
  });

  it('fails the config check for a malformed server list', async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'nexus-doctor-mcp-'));
    let stdout = '';
    const code = await doctorCommand({
      config: { env: { NEXUS_DATA_DIR: dataDir, NEXUS_MCP_SERVERS: '[{"name":"x","transport":"ftp"}]' } },
      output: { out: (text) => (stdout += text), error: () => {} },
    });
    expect(stdout).toContain('✗ config: NEXUS_MCP_SERVERS (config key "tools.mcpServers")');
    expect(code).toBe(1);
  });
});
