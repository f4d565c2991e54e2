/**
 * Runs the intake of one conversation's intents one after another, in the order they were handed
 * over, so they reach the conversation's lane in that order. Intake awaits the store and the
 * access step, and an edit or delete awaits more of them than a message: without this, a message
 * sent right after an edit would be queued first and the edit then treated as one of an older
 * message. Different conversations do not wait for each other.
 */
export interface IntakeOrder {
  run<T>(conversationKey: string, intake: () => Promise<T>): Promise<T>;
}

export function createIntakeOrder(): IntakeOrder {
  const tails = new Map<string, Promise<void>>();
  return {
    run(conversationKey, intake) {
      const previous = tails.get(conversationKey) ?? Promise.resolve();
      const result = previous.then(intake);
      const tail = result.then(
        () => undefined,
        () => undefined,
      );
      tails.set(conversationKey, tail);
      void tail.then(() => {
        if (tails.get(conversationKey) === tail) tails.delete(conversationKey);
      });
      return result;
    },
  };
}
