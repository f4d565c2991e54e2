import type { TokenCounter } from '@nexus/limits-kit';
import type {
  CancelSink,
  ChannelAdapter,
  IntentSink,
  Logger,
  OutboundIntent,
  OutboundResult,
} from '@nexus/protocol';
import type { AccessControl } from './access/access-decision.ts';
import type { Agent } from './agent/agent.ts';
import type { DailyTokenBudget } from './cost/daily-token-budget.ts';
import type { CreateTurnBudget, TurnLimits } from './cost/turn-budget.ts';
import type { InboxReplay } from './intake/replay-inbox.ts';
import type { MediaSettings } from './media/media-settings.ts';
import type { TurnMemoryOptions } from './memory/context/turn-memory.ts';
import type { SessionStore } from './session-store/session-store.ts';
import type { SubagentSettings } from './subagents/subagent-settings.ts';
import type { OutsideTools } from './tools/outside-tools.ts';
import type { TurnTracing } from './tracing/turn-tracing.ts';
import type { TurnReport } from './turn/run-turn.ts';

export interface NexusCoreOptions {
  sessionStore: SessionStore;
  agent: Agent;
  logger?: Logger;
  /** Turns generating at once, across all conversations. */
  maxConcurrentTurns?: number;
  /** Turns waiting in one conversation; beyond it intake answers `rate_limited`. */
  maxQueuedPerConversation?: number;
  /** Tokens of history in the prompt, newest turns first. */
  historyTokenBudget?: number;
  historyMaxTurns?: number;
  /** Defaults to the o200k_base tokenizer loaded once per process; pass one to share it. */
  tokenCounter?: TokenCounter | Promise<TokenCounter>;
  /** How long a channel may keep delivering after the reply was generated. */
  deliveryTimeoutMs?: number;
  /** How long intent ids are remembered in memory (the store remembers answered ones forever). */
  deduplicationTtlMs?: number;
  now?: () => number;
  onTurnFinished?: (report: TurnReport) => void;
  /** The access step between de-duplication and the lanes; without it every intent becomes a turn. */
  access?: AccessControl;
  /** Memory in the loop: context before each reply, memory tools, extraction and summaries after. */
  memory?: TurnMemoryOptions;
  /** Gives the agent `delegate`; unset fields take `DEFAULT_SUBAGENT_SETTINGS`. */
  subagents?: Partial<SubagentSettings>;
  /** Caps of one inbound message over every model call it causes; unset fields take `DEFAULT_TURN_LIMITS`. */
  turnLimits?: Partial<TurnLimits>;
  /** Where a message's counters live (a distributed deployment shares them through Redis). */
  createTurnBudget?: CreateTurnBudget;
  /** Tokens per person per day; the core closes it at shutdown. */
  dailyBudget?: DailyTokenBudget;
  /**
   * Set when tracing is on: each intake opens a trace (`nexus.intake` → access → turn → memory
   * step, model calls, delivery). Unset, no span is made.
   */
  tracing?: TurnTracing;
  /** Tools from outside the core (MCP servers, schedules) for a turn's main run. */
  outsideTools?: OutsideTools;
  /** How attachments are handled (docs/media.md); unset, they get honest refusals. */
  media?: MediaSettings;
}

export interface NexusCoreStats {
  activeTurns: number;
  /** Turns accepted and not started: behind their conversation's running turn, or for a slot. */
  queuedTurns: number;
  /** Conversations whose next turn waits for a slot: every `maxConcurrentTurns` slot is taken. */
  turnsWaitingForSlot: number;
  lanes: number;
}

/** The daemon core: intake, conversation lanes, turns and their delivery, graceful shutdown. */
export interface NexusCore {
  /** Makes an adapter the destination of replies for its channel name. Starting it is the caller's job. */
  registerChannel(adapter: ChannelAdapter): void;
  /**
   * Validates, de-duplicates and writes an intent to the inbox, then queues it; `accepted` means
   * it survives a restart. Answers before the reply is generated.
   */
  intake: IntentSink;
  /**
   * Stops a reply still being generated (a person pressed Stop): the model call is aborted and
   * the reply ends, marked stopped, with the text the person was shown, which is what is stored,
   * charged and learned from. Hand it to channels as `ChannelStartOptions.cancel`.
   */
  cancelReply: CancelSink;
  /** A message the assistant starts (a reminder): access-checked now, then delivered like a reply. */
  deliverOutbound(outbound: OutboundIntent): Promise<OutboundResult>;
  /**
   * Queues the inbox entries an earlier process accepted and did not finish, in their original
   * order per conversation. Call once, after every channel is registered and before any starts
   * taking messages; entries of channels not registered stay in the inbox.
   */
  replayInbox(): Promise<InboxReplay>;
  /**
   * Stops intake, lets running and queued turns finish until shortly before the deadline, then
   * aborts the rest (their channels get a retryable `shutting_down` error) and closes the store.
   */
  shutdown(options?: { deadlineMs?: number }): Promise<void>;
  stats(): NexusCoreStats;
  whenIdle(): Promise<void>;
}
