import { asSchema, type ToolSet } from 'ai';
import type { AgentRunPayload, WorkerMessage } from './agent-run-protocol.ts';

/**
 * The tools of a run as the worker needs them: name, description and JSON schema. Their
 * `execute` stays here: core binds tools to the person speaking (memory, subagents), so they run
 * on the gateway when a worker's model calls them.
 */
export async function describeTools(tools: ToolSet | undefined): Promise<AgentRunPayload['tools']> {
  const described: AgentRunPayload['tools'] = [];
  for (const [name, tool] of Object.entries(tools ?? {})) {
    if (typeof tool.execute !== 'function') continue;
    const inputSchema = (await asSchema(tool.inputSchema).jsonSchema) as Record<string, unknown>;
    const description = typeof tool.description === 'string' ? tool.description : undefined;
    described.push({ name, ...(description ? { description } : {}), inputSchema });
  }
  return described;
}

type ToolOutcome = Extract<WorkerMessage, { kind: 'tool-result' | 'tool-error' }>;

/** Runs one tool call a worker asked for, validating the input with the tool's own schema. */
export async function executeGatewayTool(options: {
  tools: ToolSet | undefined;
  runId: string;
  callId: string;
  name: string;
  input: unknown;
  abortSignal: AbortSignal;
}): Promise<ToolOutcome> {
  const { runId, callId } = options;
  const tool = options.tools?.[options.name];
  if (!tool || typeof tool.execute !== 'function') {
    return { runId, kind: 'tool-error', callId, message: `No tool named "${options.name}".` };
  }
  try {
    const schema = asSchema(tool.inputSchema);
    let input = options.input;
    if (schema.validate) {
      const validation = await schema.validate(input);
      if (!validation.success) {
        return { runId, kind: 'tool-error', callId, message: `Invalid input: ${validation.error.message}` };
      }
      input = validation.value;
    }
    const execute = tool.execute as (input: unknown, context: unknown) => unknown;
    let output = await execute(input, {
      toolCallId: callId,
      messages: [],
      abortSignal: options.abortSignal,
      context: undefined,
    });
    if (output !== null && typeof output === 'object' && Symbol.asyncIterator in output) {
      let last: unknown;
      for await (const chunk of output as AsyncIterable<unknown>) last = chunk;
      output = last;
    }
    return { runId, kind: 'tool-result', callId, output: output ?? null };
  } catch (error) {
    return {
      runId,
      kind: 'tool-error',
      callId,
      message: error instanceof Error ? error.message : String(error),
    };
  }
}
