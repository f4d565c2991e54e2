// Runs the test MCP server over stdio: `node test-mcp-server-stdio.ts` (a child of the test).
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { createTestMcpServer } from './create-test-mcp-server.ts';

await createTestMcpServer().connect(new StdioServerTransport());
