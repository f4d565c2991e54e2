import type { TokenCounter } from '@nexus/limits-kit';
import type { ModelMessage } from 'ai';
import type { StoredTurn } from '../session-store/session-store.ts';

export interface HistoryWithinBudget {
  messages: ModelMessage[];
  turnsUsed: number;
  tokensUsed: number;
}

/** Tokens a stored turn takes in the prompt, using the count stored with it when there is one. */
export function turnTokens(
  turn: Pick<StoredTurn, 'userText' | 'replyText' | 'tokenCount'>,
  counter: TokenCounter,
) {
  return turn.tokenCount ?? counter.count(turn.userText) + counter.count(turn.replyText);
}

/**
 * Keeps the newest answered turns that fit the budget, whole turns only, and returns them oldest
 * first as user/assistant messages. Failed turns are left out: the model never answered them. A
 * note (an older message was edited) becomes a user message of its own where it happened, with no
 * reply: the AI SDK providers accept, or merge, consecutive user messages.
 */
export function historyWithinBudget(options: {
  turns: StoredTurn[];
  tokenBudget: number;
  tokenCounter: TokenCounter;
}): HistoryWithinBudget {
  const kept: StoredTurn[] = [];
  let tokensUsed = 0;
  for (let index = options.turns.length - 1; index >= 0; index--) {
    const turn = options.turns[index];
    if (turn?.outcome !== 'ok') continue;
    const tokens = turnTokens(turn, options.tokenCounter);
    if (tokensUsed + tokens > options.tokenBudget) break;
    tokensUsed += tokens;
    kept.push(turn);
  }
  kept.reverse();
  const messages: ModelMessage[] = [];
  for (const turn of kept) {
    messages.push({ role: 'user', content: turn.userText });
    if (turn.kind !== 'note') messages.push({ role: 'assistant', content: turn.replyText });
  }
  return { messages, turnsUsed: kept.length, tokensUsed };
}
