import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { makePng } from '../media/make-png.ts';

/**
 * A real MCP server (the official TypeScript SDK) with tools tests can reason about:
 * `lookup_order` answers from a fixed table, `hang` never answers, `long_text` returns more text
 * than any sensible output cap, `draw_chart` returns a caption and a real PNG (an MCP image part),
 * `secret_admin` exists so allowlists have something to hide.
 */
export function createTestMcpServer(): McpServer {
  const server = new McpServer({ name: 'nexus-test-tools', version: '1.0.0' });
  const orders: Record<string, string> = {
    A17: 'shipped on 3 March, arriving Friday',
    B22: 'waiting for payment',
  };
  server.registerTool(
    'lookup_order',
    { description: 'Looks up the status of an order by its id.', inputSchema: { orderId: z.string() } },
    async ({ orderId }) => {
      const status = orders[orderId];
      return status
        ? { content: [{ type: 'text', text: `Order ${orderId}: ${status}` }] }
        : { content: [{ type: 'text', text: `No order ${orderId}.` }], isError: true };
    },
  );
  server.registerTool(
    'hang',
    { description: 'Never answers.', inputSchema: {} },
    () => new Promise(() => {}),
  );
  server.registerTool(
    'long_text',
    { description: 'Returns a long text.', inputSchema: { characters: z.number().int().positive() } },
    async ({ characters }) => ({ content: [{ type: 'text', text: 'x'.repeat(characters) }] }),
  );
  server.registerTool(
    'draw_chart',
    { description: 'Draws a chart of the given title as a PNG.', inputSchema: { title: z.string() } },
    async ({ title }) => ({
      content: [
        { type: 'text', text: `Chart "${title}" drawn.` },
        {
          type: 'image',
          data: Buffer.from(makePng(8, 8, [20, 120, 200])).toString('base64'),
          mimeType: 'image/png',
        },
      ],
    }),
  );
  server.registerTool('secret_admin', { description: 'Not for the model.', inputSchema: {} }, async () => ({
    content: [{ type: 'text', text: 'admin done' }],
  }));
  return server;
}
