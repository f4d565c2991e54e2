import { type Tool, type ToolSet, tool, zodSchema } from 'ai';
import { z } from 'zod';
import { runSubagent } from './run-subagent.ts';
import type { SubagentFanOut } from './subagent-fan-out.ts';
import type { TurnToolsContext } from './turn-tools-context.ts';

/** Built once so the SDK converts it to JSON Schema once, not on every turn. */
const DELEGATE_INPUT = zodSchema(z.object({ task: z.string().trim().min(1).max(4000) }));

/**
 * `delegate`: hands one self-contained task to a subagent and returns its answer as the tool
 * result. Several calls in one step run in parallel, up to the fan-out limit.
 */
export function createDelegateTool(options: {
  context: TurnToolsContext;
  /** Depth of the run that owns this tool; its subagents run one level deeper. */
  depth: number;
  fanOut: SubagentFanOut;
  buildTools: (depth: number) => ToolSet;
}): Tool {
  const { context } = options;
  return tool({
    description:
      'Give one self-contained task to a helper that works on it separately and returns its result. Call it several times in one step to work on independent tasks in parallel. Describe the task completely: the helper sees nothing of this conversation.',
    inputSchema: DELEGATE_INPUT,
    execute: async ({ task }, { abortSignal, toolCallId }) => {
      const outcome = await runSubagent({
        task,
        depth: options.depth + 1,
        context,
        fanOut: options.fanOut,
        tools: options.buildTools(options.depth + 1),
        ...(abortSignal ? { abortSignal } : {}),
        logger: context.logger.child({ subagent: toolCallId, depth: options.depth + 1 }),
      });
      return outcome.status === 'ok'
        ? { result: outcome.text }
        : { error: outcome.error, ...(outcome.text ? { partialResult: outcome.text } : {}) };
    },
  });
}
