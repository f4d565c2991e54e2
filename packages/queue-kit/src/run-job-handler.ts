import type { JobHandler } from '@nexus/protocol';

/** A handler failure as the one-line reason stored with the job. */
export function jobFailureReason(error: unknown): string {
  if (error instanceof Error) return error.message || error.name;
  return String(error);
}

/** How one run of a handler ended, as both queue implementations track it. */
export type JobRunOutcome = { kind: 'done' } | { kind: 'failed'; error: unknown } | { kind: 'abandoned' };

/** Runs a handler and turns its result into an outcome; a handler's failure is data, not a throw. */
export async function runJobHandler(
  handler: JobHandler,
  job: Parameters<JobHandler>[0],
): Promise<JobRunOutcome> {
  try {
    await handler(job);
    return { kind: 'done' };
  } catch (error) {
    return { kind: 'failed', error };
  }
}
