import type { Logger } from '@nexus/protocol';
import type { ContextScopeName, ContextScopeReport } from '../model/memory-api.ts';

export type ContextScopeRunner<T> = (abortSignal: AbortSignal) => Promise<T[]>;

const SKIPPED: ContextScopeReport = Object.freeze({ status: 'skipped', candidates: 0, durationMs: 0 });

/**
 * Runs the scopes in parallel, each under the timeout. A late or failing scope is aborted,
 * reported and left out; the others still count, so one slow backend never blocks a reply.
 *
 * The scopes start together under the same timeout, so they share one abort controller, one
 * timer and one listener on the caller's signal: when the deadline passes, the scopes still
 * running are exactly the late ones, and aborting the shared signal reaches only them (the others
 * have answered). One of each per scope was most of the memory step's own allocation per turn.
 *
 * Each scope's answer is taken with one `then` into a slot of its own, and the timer marks every
 * slot still empty as timed out before it aborts the signal: the same outcome as racing each scope
 * against a deadline promise under `Promise.all`, without the race, the per-scope async function
 * and the combined promises that made up most of what this function allocated per turn.
 */
export function runContextScopes<T, Name extends string = ContextScopeName>(options: {
  runners: Record<Name, ContextScopeRunner<T> | undefined>;
  timeoutMs: number;
  abortSignal?: AbortSignal | undefined;
  logger: Logger;
}): Promise<{ results: T[]; scopes: Record<Name, ContextScopeReport> }> {
  const names = Object.keys(options.runners) as Name[];
  const started = performance.now();
  const controller = new AbortController();
  const caller = options.abortSignal;
  const abortFromCaller = () => controller.abort(caller?.reason);
  caller?.addEventListener('abort', abortFromCaller, { once: true });
  // By position in `names`: a scope's report once it answered, failed or timed out, and what it found.
  const reports: (ContextScopeReport | undefined)[] = new Array(names.length);
  const found: (T[] | undefined)[] = new Array(names.length);
  return new Promise((resolve) => {
    // The scopes not yet settled, plus one for the loop starting them: a scope that throws at
    // once cannot finish the whole before the others have started.
    let pending = 1;
    let timer: NodeJS.Timeout | undefined;
    const finish = () => {
      clearTimeout(timer);
      caller?.removeEventListener('abort', abortFromCaller);
      const scopes = {} as Record<Name, ContextScopeReport>;
      const results: T[] = [];
      for (let index = 0; index < names.length; index += 1) {
        scopes[names[index] as Name] = reports[index] as ContextScopeReport;
        const values = found[index];
        if (values) for (const value of values) results.push(value);
      }
      resolve({ results, scopes });
    };
    const settle = (index: number, report: ContextScopeReport, values: T[] | undefined) => {
      // A scope answering after its deadline (or the deadline after its answer) changes nothing.
      if (reports[index] !== undefined) return;
      reports[index] = report;
      found[index] = values;
      done();
    };
    const done = () => {
      pending -= 1;
      if (pending === 0) finish();
    };
    const failed = (index: number, error: unknown) => {
      // A late scope failing once aborted is not news: it was reported as timed out.
      if (reports[index] !== undefined) return;
      const message = error instanceof Error ? error.message : String(error);
      options.logger.warn({ scope: names[index], err: error }, 'memory: context scope failed');
      settle(
        index,
        { status: 'error', candidates: 0, durationMs: performance.now() - started, error: message },
        undefined,
      );
    };
    timer = setTimeout(() => {
      timer = undefined;
      // Every late scope is marked before the shared signal aborts, so none of them counts as
      // answered with what it returns on abort.
      const durationMs = performance.now() - started;
      for (let index = 0; index < names.length; index += 1) {
        if (reports[index] !== undefined) continue;
        reports[index] = { status: 'timeout', candidates: 0, durationMs };
        options.logger.warn(
          { scope: names[index], timeoutMs: options.timeoutMs },
          'memory: context scope timed out',
        );
      }
      controller.abort(new Error(`memory scopes still running after ${options.timeoutMs} ms`));
      pending = 0;
      finish();
    }, options.timeoutMs);
    for (let index = 0; index < names.length; index += 1) {
      const runner = options.runners[names[index] as Name];
      if (!runner) {
        reports[index] = { ...SKIPPED };
        continue;
      }
      pending += 1;
      let running: Promise<T[]>;
      try {
        running = runner(controller.signal);
      } catch (error) {
        failed(index, error);
        continue;
      }
      Promise.resolve(running).then(
        (values) =>
          settle(
            index,
            { status: 'ok', candidates: values.length, durationMs: performance.now() - started },
            values,
          ),
        (error: unknown) => failed(index, error),
      );
    }
    done();
  });
}
