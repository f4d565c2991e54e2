import type { StoredTurn, StoredTurnKind, TurnOutcome } from './session-store.ts';

/** The columns of a history row, in the order the session store's statements select them. */
export const TURN_COLUMNS =
  'channel, intent_id, conversation_key, user_id, user_text, reply_text, outcome, token_count, created_at, kind';

export interface TurnRow {
  channel: string;
  intent_id: string;
  conversation_key: string;
  user_id: string;
  user_text: string;
  reply_text: string;
  outcome: string;
  token_count: number | null;
  created_at: number;
  kind: string;
}

export function toStoredTurn(row: TurnRow): StoredTurn {
  return {
    conversationKey: row.conversation_key,
    channel: row.channel,
    userId: row.user_id,
    intentId: row.intent_id,
    ...(row.kind === 'note' ? { kind: row.kind as StoredTurnKind } : {}),
    userText: row.user_text,
    replyText: row.reply_text,
    outcome: row.outcome as TurnOutcome,
    createdAt: row.created_at,
    ...(row.token_count === null ? {} : { tokenCount: row.token_count }),
  };
}
