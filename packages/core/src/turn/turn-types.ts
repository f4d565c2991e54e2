import type { TokenCounter } from '@nexus/limits-kit';
import type { Logger } from '@nexus/protocol';
import type { Agent } from '../agent/agent.ts';
import type { DailyTokenBudget } from '../cost/daily-token-budget.ts';
import type { BudgetStopReason, CreateTurnBudget, TurnLimits, TurnSpend } from '../cost/turn-budget.ts';
import type { MediaSettings } from '../media/media-settings.ts';
import type { MemoryStepReport } from '../memory/context/run-memory-step.ts';
import type { TurnMemory } from '../memory/context/turn-memory.ts';
import type { SessionStore } from '../session-store/session-store.ts';
import type { SubagentSettings } from '../subagents/subagent-settings.ts';
import type { OutsideTools } from '../tools/outside-tools.ts';
import type { TurnTracing } from '../tracing/turn-tracing.ts';
import type { RunningReplies } from './running-replies.ts';

/** What one turn did, for metrics. Times are in milliseconds of the core's clock. */
export interface TurnReport {
  conversationKey: string;
  channel: string;
  intentId: string;
  outcome: 'ok' | 'error' | 'aborted';
  errorCode?: string;
  /** From intake to the start of the turn. */
  queuedMs: number;
  /** From the start of the turn to the end of generation (delivery may still be running). */
  durationMs: number;
  /** From the start of the turn to the first text delta. */
  firstDeltaMs?: number;
  /** What the memory step did, when memory is configured. */
  memory?: MemoryStepReport;
  /** Model requests and tokens of the whole message, subagents included. */
  spend: TurnSpend;
  /** Set when a cap cut the reply short, or the person's daily allowance refused the turn. */
  budgetExhausted?: BudgetStopReason | 'daily_tokens';
}

export interface TurnDependencies {
  sessionStore: SessionStore;
  agent: Agent;
  tokenCounter: Promise<TokenCounter>;
  historyTokenBudget: number;
  historyMaxTurns: number;
  now: () => number;
  logger: Logger;
  /** Aborted when shutdown gives up waiting: running turns stop with `shutting_down`. */
  shutdownSignal: AbortSignal;
  /** Aborted at the very end of shutdown: deliveries still running are abandoned. */
  hardStopSignal: AbortSignal;
  /** How long delivery may go on after generation ended before the lane moves on. */
  deliveryTimeoutMs: number;
  memory?: TurnMemory;
  /** Set: the agent gets `delegate`. */
  subagents?: SubagentSettings;
  /** Caps of one inbound message over all the model calls it causes. */
  turnLimits: TurnLimits;
  /** Where a message's counters live; in-process unless a distributed deployment shares them. */
  createTurnBudget?: CreateTurnBudget;
  /** Tokens per person per day; unset, no daily limit. */
  dailyBudget?: DailyTokenBudget;
  /** Set when tracing is on: the turn, its memory step and its delivery become spans. */
  tracing?: TurnTracing;
  /** Tools from outside the core for the main run (MCP servers, schedules). */
  outsideTools?: OutsideTools;
  /** Attachments: size cap, vision, transcription, documents. Unset: attachments get honest refusals. */
  media?: MediaSettings;
  /** Where a Stop finds the reply it stops; unset, replies cannot be stopped. */
  runningReplies?: RunningReplies;
}

/**
 * A turn that answers an edited message rather than a new one (docs/conversations.md). The
 * channel is handed the edited message's id as `ConversationRef.intentId` (to thread the reply
 * under it), while the reply id stays that of the edit, so it differs from the first reply's.
 */
export interface TurnRevision {
  /** The message edited, under whose id the turn is stored. */
  targetIntentId: string;
  /** `rerun`: it was the newest turn, whose exchange this one replaces; `new`: never answered. */
  mode: 'rerun' | 'new';
  /** What it said before (rerun), so extraction can correct what it learned from the old words. */
  previousUserText?: string;
}

export interface TurnResult {
  report: TurnReport;
  /** Resolves when the adapter finished delivering (or was given up on) and the turn was stored. */
  drain: Promise<void>;
  /** The turn failed in a way a retry may fix; it was not stored, so a redelivery is not a duplicate. */
  retryableFailure: boolean;
}
