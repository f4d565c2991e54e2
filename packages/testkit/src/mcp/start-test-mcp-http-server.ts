import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { createTestMcpServer } from './create-test-mcp-server.ts';

/** The path of the stdio entry point, for a `command: process.execPath, args: [path]` config. */
export const TEST_MCP_STDIO_SCRIPT = fileURLToPath(new URL('./test-mcp-server-stdio.ts', import.meta.url));

export interface TestMcpHttpServer {
  /** e.g. http://127.0.0.1:PORT/mcp */
  url: string;
  /** Authorization headers of the requests received, in order. */
  authorizations: (string | undefined)[];
  close(): Promise<void>;
}

/** The test MCP server over Streamable HTTP (stateless: a server and transport per request). */
export async function startTestMcpHttpServer(): Promise<TestMcpHttpServer> {
  const authorizations: (string | undefined)[] = [];
  const server: Server = createServer((request, response) => {
    authorizations.push(request.headers.authorization);
    const mcp = createTestMcpServer();
    // No session id generator: stateless, as the SDK's stateless example (an absent key, not undefined).
    const transport = new StreamableHTTPServerTransport({});
    response.on('close', () => {
      void transport.close();
      void mcp.close();
    });
    mcp
      .connect(transport)
      .then(() => transport.handleRequest(request, response))
      .catch(() => {
        if (!response.headersSent) response.writeHead(500).end();
      });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    authorizations,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
