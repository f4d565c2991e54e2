/**
 * How Telegram places are written into protocol ids. A conversation is a chat, or one forum
 * topic of a chat (`<chatId>:topic:<threadId>`); an intent id is `<chatId>:<messageId>`, because
 * message ids are only unique within a chat.
 */
export interface ChatAddress {
  chatId: number;
  /** Forum topic (`message_thread_id`); absent for the chat itself and the General topic. */
  threadId?: number;
}

const CONVERSATION_PATTERN = /^(-?\d+)(?::topic:(\d+))?$/;
const INTENT_PATTERN = /^(-?\d+):(\d+)$/;

export function conversationIdOf(address: ChatAddress): string {
  return address.threadId === undefined
    ? String(address.chatId)
    : `${address.chatId}:topic:${address.threadId}`;
}

export function parseConversationId(conversationId: string): ChatAddress | undefined {
  const match = CONVERSATION_PATTERN.exec(conversationId);
  if (!match) return undefined;
  const chatId = Number(match[1]);
  return match[2] === undefined ? { chatId } : { chatId, threadId: Number(match[2]) };
}

export function intentIdOf(chatId: number, messageId: number): string {
  return `${chatId}:${messageId}`;
}

/** The message id inside an intent id, when the intent came from the same chat. */
export function messageIdOf(intentId: string, chatId: number): number | undefined {
  const match = INTENT_PATTERN.exec(intentId);
  if (!match || Number(match[1]) !== chatId) return undefined;
  return Number(match[2]);
}
