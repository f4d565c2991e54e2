import { NexusError } from '@nexus/protocol';

/** Waits for `promise`, but not past `deadlineAt`: then Redis counts as unreachable. */
export async function untilDeadline<T>(
  promise: Promise<T>,
  deadlineAt: number,
  now: () => number,
): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new NexusError({
            code: 'queue_unavailable',
            retryable: true,
            message: 'Redis stayed unreachable; the message is kept and can be sent again.',
          }),
        ),
      Math.max(0, deadlineAt - now()),
    );
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}
