import type { ChatMessage } from './conversation-state.ts';

/** A person's message with what follows it up to their next one (leading messages: no question). */
export interface MessageGroup {
  question: ChatMessage | undefined;
  messages: ChatMessage[];
}

/**
 * One of the person's messages that this copy and the gateway both hold, with what another tab or
 * device changed since taken in: an edit of the words, and the answer shown there (regenerated
 * there, or another version chosen). What only this copy knows stays: its files, the versions it
 * holds, errors. Undefined when the gateway says nothing new about it.
 */
export function withServerEdits(local: MessageGroup, server: MessageGroup): MessageGroup | undefined {
  const question = local.question;
  const serverQuestion = server.question;
  if (question === undefined || serverQuestion === undefined || question.deleted) return undefined;
  let updated: ChatMessage = question;
  let messages = local.messages;
  const serverReply = server.messages.find((message) => message.role === 'assistant');
  if (serverQuestion.text !== question.text) {
    updated = { ...updated, text: serverQuestion.text, edited: true };
    // The answers held here answered the old words (paging back to one shows them), except the
    // one the gateway shows, which may be the answer to the new words, streamed here live.
    messages = messages.map((message) =>
      message.role === 'assistant' && message.question === undefined && message.id !== serverReply?.id
        ? { ...message, question: question.text }
        : message,
    );
  }
  if (serverReply !== undefined) {
    const replies = messages.filter((message) => message.role === 'assistant' && !message.unprompted);
    const shown =
      replies.find((reply) => reply.id === question.chosenReplyId && reply.state === 'done') ??
      replies.at(-1);
    const held = replies.find((reply) => reply.id === serverReply.id);
    if (held === undefined) {
      // A version made elsewhere: the newest, so the one shown.
      messages = [...messages, serverReply];
      const { chosenReplyId: _, ...rest } = updated;
      updated = rest;
    } else if (shown?.id !== serverReply.id && held.state === 'done') {
      updated = { ...updated, chosenReplyId: serverReply.id };
    } else if (held.state === 'done' && (held.text !== serverReply.text || held.question !== undefined)) {
      // The gateway's answer is to the words it holds, which this copy now shows.
      const { question: _, ...answer } = held;
      messages = messages.map((message) =>
        message === held ? { ...answer, text: serverReply.text } : message,
      );
    }
  }
  if (updated === question && messages === local.messages) return undefined;
  return {
    question: updated,
    messages: messages.map((message) => (message === question ? updated : message)),
  };
}
