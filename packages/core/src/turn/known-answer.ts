/**
 * Thrown inside the turn when the answer is known without the model: the person's daily allowance
 * is used up, or the attachments' problems are the whole answer. No model call, no extraction.
 */
export class EarlyReply extends Error {
  readonly text: string;
  readonly budgetExhausted: 'daily_tokens' | undefined;

  constructor(text: string, budgetExhausted?: 'daily_tokens') {
    super('answered without the model');
    this.text = text;
    this.budgetExhausted = budgetExhausted;
  }
}
