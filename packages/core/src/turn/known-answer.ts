import type { ReplyStream } from './reply-stream.ts';
import type { ReplyDraft } from './turn-so-far.ts';

/**
 * A stage's result when the answer is known without the model: the person's daily allowance is
 * used up, or the attachments' problems are the whole answer. No model call, no extraction.
 */
export interface KnownAnswer {
  kind: 'answered';
  text: string;
  budgetExhausted?: 'daily_tokens';
}

/** The known answer becomes the whole reply, streamed like one the model wrote. */
export function replyWithKnownAnswer(answer: KnownAnswer, reply: ReplyDraft, events: ReplyStream): void {
  reply.text = answer.text;
  if (answer.budgetExhausted) reply.budgetExhausted = answer.budgetExhausted;
  events.push({ type: 'reply.start', replyId: reply.replyId });
  events.push({ type: 'reply.delta', replyId: reply.replyId, text: reply.text });
  events.push({ type: 'reply.end', replyId: reply.replyId, text: reply.text });
}
