import { NexusError } from '@nexus/protocol';

/** Readers at once: each may use up to its memory budget, so many uploads at once cannot add up. */
export const MAX_PDF_READERS = 2;

interface Waiter {
  holder: string;
  start: () => void;
}

const holders: string[] = [];
const waiting: Waiter[] = [];

/**
 * Who holds the PDF reader slots right now (person ids, one entry per running reader). Shown for
 * the operator and the tests: a person never appears twice.
 */
export function pdfReaderSlotHolders(): readonly string[] {
  return [...holders];
}

/**
 * Takes one of the MAX_PDF_READERS slots for `holder` (the person the turn runs for). A person
 * holds at most one at a time, so one sender's files queue behind each other while everyone
 * else's still find a free slot; waiting longer than `timeoutMs` rejects with `timeout`.
 * Returns the function that gives the slot back.
 */
export function takePdfReaderSlot(holder: string, timeoutMs: number): Promise<() => void> {
  const release = () => {
    holders.splice(holders.indexOf(holder), 1);
    startWaiters();
  };
  if (canStart(holder)) {
    holders.push(holder);
    return Promise.resolve(once(release));
  }
  return new Promise((resolve, reject) => {
    const waiter: Waiter = {
      holder,
      start: () => {
        clearTimeout(timer);
        holders.push(holder);
        resolve(once(release));
      },
    };
    const timer = setTimeout(() => {
      waiting.splice(waiting.indexOf(waiter), 1);
      reject(
        new NexusError({ code: 'timeout', message: `Reading the PDF took longer than ${timeoutMs} ms.` }),
      );
    }, timeoutMs);
    waiting.push(waiter);
  });
}

function canStart(holder: string): boolean {
  return holders.length < MAX_PDF_READERS && !holders.includes(holder);
}

/** First come, first served among the people who hold no slot yet. */
function startWaiters(): void {
  for (let index = 0; index < waiting.length && holders.length < MAX_PDF_READERS; ) {
    const waiter = waiting[index] as Waiter;
    if (!canStart(waiter.holder)) {
      index += 1;
      continue;
    }
    waiting.splice(index, 1);
    waiter.start();
  }
}

function once(release: () => void): () => void {
  let released = false;
  return () => {
    if (released) return;
    released = true;
    release();
  };
}
