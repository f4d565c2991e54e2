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
  const exchanges = turns.filter((turn) => (turn.kind ?? 'turn') === 'turn').slice(-RECENT_EXCHANGES);
  return exchanges
    .flatMap((turn) => [turn.userText, turn.replyText])
    .filter((text) => text.trim() !== '')
    .map((text) => text.slice(0, MAX_TEXT_CHARS));
}
