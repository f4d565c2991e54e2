import type { StoredTurn } from '../../session-store/session-store.ts';

/** The last two exchanges: enough for a follow-up's subject, few enough to stay on topic. */
const RECENT_EXCHANGES = 2;
/** Each text is cut to this many characters: the subject of a follow-up is rarely deep in a long reply. */
const MAX_TEXT_CHARS = 1_000;

/**
 * What the memory query gets besides the message: the latest turns of the conversation, oldest
 * first, each exchange as its message then its reply, so "and what about her sister?" is searched
 * with the words of what was said before it. Notes (edits) and empty texts are left out.
 */
export function recentTurnTexts(turns: readonly StoredTurn[]): string[] {
  // From the newest back, stopping at the second exchange: the history read for a turn holds up
  // to `historyMaxTurns` (50) turns, and filtering all of them to keep two was most of the cost.
  const exchanges: StoredTurn[] = [];
  for (let index = turns.length - 1; index >= 0 && exchanges.length < RECENT_EXCHANGES; index -= 1) {
    const turn = turns[index] as StoredTurn;
    if ((turn.kind ?? 'turn') === 'turn') exchanges.push(turn);
  }
  const texts: string[] = [];
  for (let index = exchanges.length - 1; index >= 0; index -= 1) {
    const { userText, replyText } = exchanges[index] as StoredTurn;
    if (userText.trim() !== '') texts.push(userText.slice(0, MAX_TEXT_CHARS));
    if (replyText.trim() !== '') texts.push(replyText.slice(0, MAX_TEXT_CHARS));
  }
  return texts;
}
