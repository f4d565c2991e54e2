import type { Logger } from '@nexus/protocol';
import type { ContextScopeName, ContextScopeReport } from '../model/memory-api.ts';

export type ContextScopeRunner<T> = (abortSignal: AbortSignal) => Promise<T[]>;

const TIMED_OUT = Symbol('timed out');

/**
 * Runs the scopes in parallel, each under the timeout. A late or failing scope is aborted,
 * reported and left out; the others still count, so one slow backend never blocks a reply.
 *
 * The scopes start together under the same timeout, so they share one abort controller, one
 * timer and one listener on the caller's signal: when the deadline passes, the scopes still
 * running are exactly the late ones, and aborting the shared signal reaches only them (the others
 * have answered). One of each per scope was most of the memory step's own allocation per turn.
 */
export async function runContextScopes<T, Name extends string = ContextScopeName>(options: {
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
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<typeof TIMED_OUT>((resolve) => {
    timer = setTimeout(() => resolve(TIMED_OUT), options.timeoutMs);
  });
  let outcomes: [Name, ContextScopeReport, T[]][];
  try {
    outcomes = await Promise.all(
      names.map(async (name): Promise<[Name, ContextScopeReport, T[]]> => {
        const runner = options.runners[name];
        if (!runner) return [name, { status: 'skipped', candidates: 0, durationMs: 0 }, []];
        try {
          // Every scope's race sees the deadline before any of them aborts the shared signal.
          const result = await Promise.race([runner(controller.signal), deadline]);
          const durationMs = performance.now() - started;
          if (result === TIMED_OUT) {
            controller.abort(new Error(`memory scopes still running after ${options.timeoutMs} ms`));
            options.logger.warn(
              { scope: name, timeoutMs: options.timeoutMs },
              'memory: context scope timed out',
            );
            return [name, { status: 'timeout', candidates: 0, durationMs }, []];
          }
          return [name, { status: 'ok', candidates: result.length, durationMs }, result];
        } catch (error) {
          const message = error instanceof Error ? error.message : String(error);
          options.logger.warn({ scope: name, err: error }, 'memory: context scope failed');
          return [
            name,
            { status: 'error', candidates: 0, durationMs: performance.now() - started, error: message },
            [],
          ];
        }
      }),
    );
  } finally {
    clearTimeout(timer);
    caller?.removeEventListener('abort', abortFromCaller);
  }
  const scopes = {} as Record<Name, ContextScopeReport>;
  const results: T[] = [];
  for (const [name, report, found] of outcomes) {
    scopes[name] = report;
    results.push(...found);
  }
  return { results, scopes };
}
