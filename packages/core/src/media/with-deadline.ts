import { NexusError } from '@nexus/protocol';

/** Rejects when the signal fires even if the work ignores it (a channel that does not honour abort). */
export function withDeadline<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(deadlineError(signal));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(deadlineError(signal));
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

function deadlineError(signal: AbortSignal): unknown {
  const reason = signal.reason as { name?: string } | undefined;
  if (reason?.name === 'TimeoutError')
    return new NexusError({ code: 'timeout', message: 'time budget used up' });
  return reason;
}
