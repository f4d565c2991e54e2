import type { ChatMessage } from './conversation-state.ts';

/** Where a reply stands among the versions of the answer to its message. */
export interface ReplyVersions {
  /** The message answered (its clientMessageId). */
  questionId: string;
  /** 0-based position of this reply among them, oldest first. */
  index: number;
  /** Reply ids of every version, oldest first. */
  replyIds: string[];
}

/** One row of the conversation as drawn: hidden versions are left out. */
export interface VisibleMessage {
  message: ChatMessage;
  /** On a reply with more than one version of its answer. */
  versions?: ReplyVersions;
  /** On the person's message: the words the shown version answered, when they were edited since. */
  shownText?: string;
  /** On the newest reply of the conversation: the message Regenerate answers again. */
  regenerateOf?: string;
  /** On an error: the message it is about, which Try again asks to be answered again. */
  retryOf?: string;
}

/**
 * The conversation as drawn: the answers after one of the person's messages (the first, those
 * to an edit of it, regenerated ones) are versions of one answer, of which only the chosen one
 * (the newest unless the person paged back) is shown, with its position ‹2/3›.
 */
export function visibleMessages(messages: readonly ChatMessage[]): VisibleMessage[] {
  const rows: VisibleMessage[] = [];
  let index = 0;
  while (index < messages.length) {
    const message = messages[index]!;
    if (message.role !== 'user') {
      // Before any message of the person's (a reminder): nothing to group.
      rows.push({ message });
      index += 1;
      continue;
    }
    let end = index + 1;
    while (end < messages.length && messages[end]!.role !== 'user') end += 1;
    rows.push(...answerGroup(message, messages.slice(index + 1, end), end === messages.length));
    index = end;
  }
  const last = rows.findLast((row) => row.message.role === 'assistant');
  const newestQuestion = messages.findLast((message) => message.role === 'user');
  if (
    last !== undefined &&
    last === rows.at(-1) &&
    last.message.state === 'done' &&
    !last.message.unprompted &&
    newestQuestion?.state === 'sent' &&
    !newestQuestion.deleted
  )
    last.regenerateOf = newestQuestion.id;
  return rows;
}

/** `newest`: the person's newest message, the only one the gateway answers again. */
function answerGroup(question: ChatMessage, answers: ChatMessage[], newest: boolean): VisibleMessage[] {
  const replies = answers.filter((answer) => answer.role === 'assistant' && !answer.unprompted);
  const chosen =
    replies.find((reply) => reply.id === question.chosenReplyId && reply.state === 'done') ?? replies.at(-1);
  const versions =
    replies.length > 1 && chosen !== undefined
      ? {
          questionId: question.id,
          index: replies.indexOf(chosen),
          replyIds: replies.map((reply) => reply.id),
        }
      : undefined;
  const shownText =
    versions !== undefined && chosen?.question !== undefined && !question.deleted
      ? chosen.question
      : undefined;
  const rows: VisibleMessage[] = [{ message: question, ...(shownText === undefined ? {} : { shownText }) }];
  for (const answer of answers) {
    if (answer.role === 'assistant' && !answer.unprompted && answer !== chosen) continue;
    if (answer.role === 'error') {
      const retryable = newest && question.state === 'sent' && !question.deleted;
      rows.push({ message: answer, ...(retryable ? { retryOf: question.id } : {}) });
      continue;
    }
    rows.push({ message: answer, ...(versions ? { versions } : {}) });
  }
  return rows;
}
