import type { TokenCounter } from '@nexus/limits-kit';
import type { Intent, Logger } from '@nexus/protocol';
import type { Tracer } from '@opentelemetry/api';
import type { ToolSet } from 'ai';
import type { Agent } from '../agent/agent.ts';
import { hasAnyTool } from '../agent/has-any-tool.ts';
import type { TurnBudget } from '../cost/turn-budget.ts';
import type { TurnMemory } from '../memory/context/turn-memory.ts';
import { memorySubjectOf } from '../memory/memory-subject.ts';
import { createDelegateTool } from '../subagents/delegate-tool.ts';
import { createSubagentFanOut, type SubagentFanOut } from '../subagents/subagent-fan-out.ts';
import {
  DEFAULT_SUBAGENT_SETTINGS,
  type SubagentSettings,
  type TurnToolName,
} from '../subagents/subagent-settings.ts';
import type { TurnToolsContext } from '../subagents/turn-tools-context.ts';
import { createMemoryTools } from './memory-tools.ts';

/**
 * The tools of one run at `depth` (0 = the main run): memory tools bound to the person speaking
 * and, above the depth limit, `delegate`. `allowed` narrows the set for subagents.
 */
export function createTurnTools(
  context: TurnToolsContext,
  options: { depth: number; fanOut: SubagentFanOut; allowed?: readonly TurnToolName[] },
): ToolSet {
  const allowed = options.allowed ?? ALL_TURN_TOOLS;
  const tools: ToolSet = {};
  if (context.memory && context.memoryTools) {
    const memoryTools = createMemoryTools({
      memory: context.memory,
      userId: context.userId,
      ...(context.memorySubject ? { subject: context.memorySubject } : {}),
      ...(context.speakerId ? { speakerId: context.speakerId } : {}),
      sessionId: context.sessionId,
      now: context.now,
      logger: context.logger,
    });
    for (const name in memoryTools) {
      if (allowed.includes(name as TurnToolName)) tools[name] = memoryTools[name]!;
    }
  }
  if (
    context.agent?.configured &&
    allowed.includes('delegate') &&
    options.depth < context.subagents.maxDepth
  ) {
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

/**
 * The tools of a main run, from the core's memory and subagent settings; undefined when there are
 * none. Memory follows the conversation (`memorySubjectOf`): in a group, the memory tools and every
 * subagent reach the group's memory and no person's; a speaker without a usable id gets none.
 */
export function toolsForTurn(options: {
  memory?: TurnMemory;
  subagents?: SubagentSettings;
  agent: Agent;
  budget?: TurnBudget;
  intent: Pick<Intent, 'channel' | 'userId' | 'conversation'>;
  /** Outside tools (MCP, schedules) for this main run only; the core's own names win a clash. */
  outside?: ToolSet | undefined;
  sessionId: string;
  tokenCounter: TokenCounter;
  now: () => number;
  logger: Logger;
  tracer?: Tracer | undefined;
}): ToolSet | undefined {
  const { subagents, intent } = options;
  const subject = memorySubjectOf(intent, options.memory?.groupPersonalMemory);
  const memory = subject.kind === 'none' ? undefined : options.memory;
  const outside = options.outside;
  if (!memory?.tools && !subagents) return outside && hasAnyTool(outside) ? outside : undefined;
  const settings = subagents ?? DEFAULT_SUBAGENT_SETTINGS;
  const tools = createTurnTools(
    {
      ...(memory ? { memory: memory.port } : {}),
      memoryTools: memory?.tools ?? false,
      ...(subagents ? { agent: options.agent } : {}),
      subagents: settings,
      ...(options.budget ? { budget: options.budget } : {}),
      userId: subject.kind === 'none' ? intent.userId : subject.userId,
      ...(subject.kind === 'group' ? { memorySubject: 'group' as const, speakerId: subject.speakerId } : {}),
      sessionId: options.sessionId,
      memoryBudgetMs: memory?.budgetMs ?? 0,
      tokenCounter: options.tokenCounter,
      now: options.now,
      logger: options.logger,
      ...(options.tracer ? { tracer: options.tracer } : {}),
    },
    { depth: 0, fanOut: createSubagentFanOut(settings) },
  );
  for (const name in outside) tools[name] ??= outside[name]!;
  return hasAnyTool(tools) ? tools : undefined;
}

/** Every tool a run may have; `allowed` narrows it for subagents. */
const ALL_TURN_TOOLS: readonly TurnToolName[] = ['remember', 'recall', 'forget', 'delegate'];
