const DAY_MS = 24 * 60 * 60 * 1000;

export interface AttachmentRefusals {
  /** Messages with a refused attachment a person may send in 24 hours. */
  readonly perDay: number;
  /** Set once the person has used their allowance: their attachments are not opened until then. */
  blockedUntil(personId: string): number | undefined;
  /** One more message of theirs had an attachment that could not be used. */
  record(personId: string): void;
}

/**
 * A cheap allowance for messages whose attachments are refused: such a message ends without a
 * model call, so no token budget ever sees it, yet each one may cost a 20 MB download. Past the
 * allowance a person's attachments are answered with one sentence and never downloaded. Kept in
 * memory (a restart gives everyone a fresh allowance): a count of recent refusals per person.
 */
export function createAttachmentRefusals(options: {
  perDay: number;
  now?: () => number;
}): AttachmentRefusals {
  const now = options.now ?? Date.now;
  const refusals = new Map<string, number[]>();
  const recent = (personId: string): number[] => {
    const since = now() - DAY_MS;
    const times = (refusals.get(personId) ?? []).filter((time) => time > since);
    if (times.length === 0) refusals.delete(personId);
    else refusals.set(personId, times);
    return times;
  };
  return {
    perDay: options.perDay,
    blockedUntil(personId) {
      const times = recent(personId);
      if (times.length < options.perDay) return undefined;
      // Open again when the oldest refusal that counts leaves the window.
      return (times[times.length - options.perDay] as number) + DAY_MS;
    },
    record(personId) {
      // People who stopped sending leave the map now and then, so it holds recent senders only.
      if (refusals.size > 1000) for (const other of [...refusals.keys()]) recent(other);
      const times = recent(personId);
      times.push(now());
      // Only the newest `perDay` ever decide anything.
      refusals.set(personId, times.slice(-options.perDay));
    },
  };
}
