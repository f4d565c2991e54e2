import type { TokenCounter } from '@nexus/limits-kit';
import type { Intent, NexusError } from '@nexus/protocol';
import type { BudgetStopReason } from '../cost/turn-budget.ts';
import type { TurnMedia } from '../media/turn-media.ts';
import type { MemoryStepReport } from '../memory/context/run-memory-step.ts';

/**
 * The reply as it is produced. stream-agent-reply fills it while text streams, so what was said
 * before a failure is still reported and stored.
 */
export interface ReplyDraft {
  readonly replyId: string;
  /** Everything said so far: the media prefix, the model's text and any budget note. */
  text: string;
  /** Files sent with the reply; history keeps their names, not their bytes. */
  mediaNames: string[];
  /** `reply.start` went out. */
  started: boolean;
  firstDeltaAt?: number;
  /** The person pressed Stop; `text` is what they had been shown. */
  stopped?: boolean;
  /** Set when a cap cut the reply short, or the person's daily allowance refused the turn. */
  budgetExhausted?: BudgetStopReason | 'daily_tokens';
}

/**
 * What the stages of one turn have produced so far, in plain values. A stage that fails leaves
 * what the earlier ones reached, for the report and the stored turn.
 */
export interface TurnSoFar {
  /** After read-attachments the text includes what voice notes said, for the model, history and memory. */
  intent: Intent;
  media?: TurnMedia;
  reply: ReplyDraft;
  tokenCounter?: TokenCounter;
  memoryReport?: MemoryStepReport;
  failure?: NexusError;
}

export function emptyReply(replyId: string): ReplyDraft {
  return { replyId, text: '', mediaNames: [], started: false };
}
