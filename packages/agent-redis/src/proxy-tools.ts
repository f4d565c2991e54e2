import { dynamicTool, jsonSchema, type ToolSet } from 'ai';
import type { AgentRunPayload } from './agent-run-protocol.ts';

export type CallGatewayTool = (call: {
  callId: string;
  name: string;
  input: unknown;
  abortSignal: AbortSignal;
}) => Promise<unknown>;

/**
 * Worker-side stand-ins for the tools a run may call: the model sees the same names, descriptions
 * and schemas, and each call is answered by the gateway, which holds the real ones.
 */
export function createProxyTools(
  descriptions: AgentRunPayload['tools'],
  callGateway: CallGatewayTool,
  runSignal: AbortSignal,
): ToolSet | undefined {
  if (descriptions.length === 0) return undefined;
  const tools: ToolSet = {};
  for (const description of descriptions) {
    tools[description.name] = dynamicTool({
      ...(description.description ? { description: description.description } : {}),
      inputSchema: jsonSchema(description.inputSchema),
      execute: (input, options) =>
        callGateway({
          callId: options.toolCallId,
          name: description.name,
          input,
          abortSignal: options.abortSignal ?? runSignal,
        }),
    });
  }
  return tools;
}
