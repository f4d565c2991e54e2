/** How one work of `settleWithin` ended; `settledAt` is `performance.now()` when it did. */
export type Settled<T> =
  | { readonly status: 'ok'; readonly value: T; readonly settledAt: number }
  | { readonly status: 'error'; readonly error: unknown; readonly settledAt: number }
  | { readonly status: 'timeout'; readonly settledAt: number };

/** A work's slot in the answer: how it settled, or `undefined` where there was no work. */
type SettledOf<Work> = Work extends () => infer Result ? Settled<Awaited<Result>> : undefined;

/**
 * Runs `works` together under one deadline: each settles into its own slot (`undefined` for an
 * absent work), and when `budgetMs` passes first every slot still open reads `timeout`. A work that
 * throws at once or answers with a plain value counts like one that rejects or resolves. What a
 * work does after the deadline changes nothing; aborting it is the caller's (who knows how).
 *
 * One timer and one `then` per work: racing each work against a deadline promise under
 * `Promise.all` made a race, an async function and their promises per work, and the memory
 * step runs this on every turn (the context's scopes, and the context beside the summary).
 */
export function settleWithin<const Works extends ReadonlyArray<(() => unknown) | undefined>>(
  works: Works,
  budgetMs: number,
): Promise<{ -readonly [Index in keyof Works]: SettledOf<Works[Index]> }> {
  type Slots = { -readonly [Index in keyof Works]: SettledOf<Works[Index]> };
  return new Promise((resolve) => {
    const slots: (Settled<unknown> | undefined)[] = new Array(works.length).fill(undefined);
    // Works still running, plus one for the loop starting them: a work that throws at once
    // cannot end the whole before the others have started.
    let pending = 1;
    let over = false;
    const timer = setTimeout(() => {
      over = true;
      const timedOut: Settled<never> = { status: 'timeout', settledAt: performance.now() };
      for (let index = 0; index < works.length; index += 1)
        if (works[index] !== undefined && slots[index] === undefined) slots[index] = timedOut;
      resolve(slots as Slots);
    }, budgetMs);
    const settle = (index: number, outcome: Settled<unknown>) => {
      if (over) return;
      slots[index] = outcome;
      done();
    };
    const done = () => {
      pending -= 1;
      if (pending > 0 || over) return;
      clearTimeout(timer);
      resolve(slots as Slots);
    };
    for (let index = 0; index < works.length; index += 1) {
      const work = works[index];
      if (work === undefined) continue;
      pending += 1;
      try {
        Promise.resolve(work()).then(
          (value) => settle(index, { status: 'ok', value, settledAt: performance.now() }),
          (error: unknown) => settle(index, { status: 'error', error, settledAt: performance.now() }),
        );
      } catch (error) {
        settle(index, { status: 'error', error, settledAt: performance.now() });
      }
    }
    done();
  });
}
