export { createTestMcpServer } from './create-test-mcp-server.ts';
export {
  startTestMcpHttpServer,
  TEST_MCP_STDIO_SCRIPT,
  type TestMcpHttpServer,
} from './start-test-mcp-http-server.ts';
