import type { Logger } from '@nexus/protocol';
import type { ToolSet } from 'ai';
import type { Agent } from '../agent.ts';
import type { MemoryPort } from '../memory-step/memory-port.ts';
import { createSemaphore, type Semaphore } from '../semaphore.ts';
import { createDelegateTool } from '../subagents/delegate-tool.ts';
import type { SubagentSettings, TurnToolName } from '../subagents/subagent-settings.ts';
import type { TokenCounter } from '../token-counter.ts';
import { createMemoryTools } from './memory-tools.ts';

/** Everything the tools of one turn are bound to. */
export interface TurnToolsContext {
  /** Without it there are no memory tools, and subagents get no memory block. */
  memory?: MemoryPort;
  /** Without it there is no `delegate`. */
  agent?: Agent;
  subagents: SubagentSettings;
  userId: string;
  sessionId: string;
  /** Deadline of a subagent's memory lookup. */
  memoryBudgetMs: number;
  tokenCounter: TokenCounter;
  now: () => number;
  logger: Logger;
}

/** Shared by every subagent of one main run: the parallel limit and the total started. */
export interface SubagentFanOut {
  slots: Semaphore;
  started: number;
}

export function createSubagentFanOut(settings: SubagentSettings): SubagentFanOut {
  return { slots: createSemaphore(settings.maxParallel), started: 0 };
}

/**
 * The tools of one run at `depth` (0 = the main run): memory tools bound to the person speaking
 * and, above the depth limit, `delegate`. `allowed` narrows the set for subagents.
 */
export function createTurnTools(
  context: TurnToolsContext,
  options: { depth: number; fanOut: SubagentFanOut; allowed?: readonly TurnToolName[] },
): ToolSet {
  const allowed = new Set<TurnToolName>(options.allowed ?? ['remember', 'recall', 'forget', 'delegate']);
  const tools: ToolSet = {};
  if (context.memory) {
    const memoryTools = createMemoryTools({
      memory: context.memory,
      userId: context.userId,
      sessionId: context.sessionId,
      now: context.now,
      logger: context.logger,
    });
    for (const [name, definition] of Object.entries(memoryTools)) {
      if (allowed.has(name as TurnToolName)) tools[name] = definition;
    }
  }
  if (context.agent?.configured && allowed.has('delegate') && options.depth < context.subagents.maxDepth) {
    tools.delegate = createDelegateTool({
      context,
      depth: options.depth,
      fanOut: options.fanOut,
      buildTools: (depth) =>
        createTurnTools(context, { depth, fanOut: options.fanOut, allowed: context.subagents.tools }),
    });
  }
  return tools;
}
