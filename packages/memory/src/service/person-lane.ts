/**
 * Where the memory service runs one person's writes one at a time (add, update, delete, reset),
 * so two concurrent copies of a fact cannot both be inserted and an edit or a deletion is never
 * overtaken by an add that read the person's memories before it. In process by default
 * (`inProcessPersonLane`); replicas on one store share a lane held elsewhere (the gateway's
 * Redis lease). `run` may reject with a retryable error when the lane cannot be reached.
 */
export interface PersonLane {
  run<T>(userId: string, work: () => Promise<T>): Promise<T>;
}

/** One queue per person in this process: each write starts when the one before it settles. */
export function inProcessPersonLane(): PersonLane {
  const lanes = new Map<string, Promise<unknown>>();
  return {
    async run<T>(userId: string, work: () => Promise<T>): Promise<T> {
      const previous = lanes.get(userId) ?? Promise.resolve();
      const current = previous.catch(() => undefined).then(work);
      lanes.set(userId, current);
      try {
        return await current;
      } finally {
        if (lanes.get(userId) === current) lanes.delete(userId);
      }
    },
  };
}
