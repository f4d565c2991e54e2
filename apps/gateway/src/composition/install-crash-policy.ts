import type { EventEmitter } from 'node:events';
import type { Logger } from '@nexus/protocol';

/** EX_SOFTWARE: the process stopped because of a bug, so its supervisor restarts it. */
export const CRASH_EXIT_CODE = 70;

export interface CrashPolicyOptions {
  /** `process`, or a stand-in in tests. */
  events: Pick<EventEmitter, 'on'>;
  logger: Logger;
  /**
   * The graceful stop of whatever is running (refuse new messages, let in-flight replies finish
   * until the shutdown deadline); undefined while it is still starting.
   */
  close: () => Promise<void> | undefined;
  /** The shutdown deadline; a close that outlives it by 5 s is abandoned. */
  deadlineMs: number;
  exit: (code: number) => void;
}

/**
 * What the process does with an exception nobody caught or a rejection nobody handled: a bug
 * whose damage is unknown, so it is logged (with the stack, under pino's `err` key), intake
 * stops, replies already running get the shutdown deadline to finish, and the process exits
 * with `CRASH_EXIT_CODE` so Docker or systemd restarts it. Never a silent death, never carrying
 * on in a state nobody can reason about.
 */
export function installCrashPolicy(options: CrashPolicyOptions): void {
  let stopping = false;
  const onCrash = (kind: 'uncaughtException' | 'unhandledRejection') => (error: unknown) => {
    options.logger.error(
      { err: error, kind, exitCode: CRASH_EXIT_CODE },
      stopping
        ? `${kind} while stopping after an earlier one`
        : `${kind}: a bug; stopping gracefully and exiting so the supervisor restarts Nexus`,
    );
    if (stopping) return;
    stopping = true;
    const hardStop = setTimeout(() => {
      options.logger.error(
        { deadlineMs: options.deadlineMs },
        'stopping after a crash took too long: exiting now',
      );
      options.exit(CRASH_EXIT_CODE);
    }, options.deadlineMs + 5000);
    let closing: Promise<void> | undefined;
    try {
      closing = options.close();
    } catch (closeError) {
      closing = Promise.reject(closeError);
    }
    Promise.resolve(closing).then(
      () => {
        clearTimeout(hardStop);
        options.exit(CRASH_EXIT_CODE);
      },
      (closeError: unknown) => {
        clearTimeout(hardStop);
        options.logger.error({ err: closeError }, 'error while stopping after a crash');
        options.exit(CRASH_EXIT_CODE);
      },
    );
  };
  options.events.on('uncaughtException', onCrash('uncaughtException'));
  options.events.on('unhandledRejection', onCrash('unhandledRejection'));
}
