import type { TokenCounter } from '@nexus/limits-kit';
import type { Logger, MemoryPort } from '@nexus/protocol';
import type { Tracer } from '@opentelemetry/api';
import type { Agent } from '../agent/agent.ts';
import type { TurnBudget } from '../cost/turn-budget.ts';
import type { SubagentSettings } from './subagent-settings.ts';

/** Everything the tools of one turn are bound to. */
export interface TurnToolsContext {
  /** Without it there are no memory tools, and subagents get no memory block. */
  memory?: MemoryPort;
  /** `remember`, `recall`, `forget` (when `memory` is set). */
  memoryTools: boolean;
  /** Without it there is no `delegate`. */
  agent?: Agent;
  subagents: SubagentSettings;
  /** The inbound message's allowance: subagents draw from it like the main run. */
  budget?: TurnBudget;
  /** Whose memory the tools and subagents use: the person in a direct chat, the group's id in a group. */
  userId: string;
  /** `group`: `userId` is a group's memory id and `speakerId` who is speaking. Default `person`. */
  memorySubject?: 'person' | 'group';
  speakerId?: string;
  sessionId: string;
  /** Deadline of a subagent's memory lookup. */
  memoryBudgetMs: number;
  tokenCounter: TokenCounter;
  now: () => number;
  logger: Logger;
  /** Tracing on: a subagent's memory lookup is a `nexus.memory_step` span of its run. */
  tracer?: Tracer;
}
