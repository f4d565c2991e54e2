import { settleWithin } from '@nexus/limits-kit';
import type { Logger } from '@nexus/protocol';
import type { ContextScopeName, ContextScopeReport } from '../model/memory-api.ts';

export type ContextScopeRunner<T> = (abortSignal: AbortSignal) => Promise<T[]>;

const SKIPPED: ContextScopeReport = Object.freeze({ status: 'skipped', candidates: 0, durationMs: 0 });

/**
 * Runs the scopes in parallel, each under the timeout. A late or failing scope is aborted,
 * reported and left out; the others still count, so one slow backend never blocks a reply.
 *
 * The scopes start together under the same timeout, so they share one abort controller, one
 * timer (`settleWithin`'s) and one listener on the caller's signal: when the deadline passes, the
 * scopes still running are exactly the late ones, and aborting the shared signal reaches only
 * them (the others have answered). One of each per scope was most of the memory step's own
 * allocation per turn. What a late scope answers once aborted is not counted: its slot already
 * reads `timeout`.
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
  const works = names.map((name) => {
    const runner = options.runners[name];
    return runner && (() => runner(controller.signal));
  });
  const settled = await settleWithin(works, options.timeoutMs);
  caller?.removeEventListener('abort', abortFromCaller);
  const scopes = {} as Record<Name, ContextScopeReport>;
  const results: T[] = [];
  let late = false;
  for (let index = 0; index < names.length; index += 1) {
    const name = names[index] as Name;
    const outcome = settled[index];
    if (outcome === undefined) {
      scopes[name] = { ...SKIPPED };
    } else if (outcome.status === 'ok') {
      scopes[name] = {
        status: 'ok',
        candidates: outcome.value.length,
        durationMs: outcome.settledAt - started,
      };
      for (const value of outcome.value) results.push(value);
    } else if (outcome.status === 'error') {
      const error = outcome.error;
      options.logger.warn({ scope: name, err: error }, 'memory: context scope failed');
      const message = error instanceof Error ? error.message : String(error);
      scopes[name] = {
        status: 'error',
        candidates: 0,
        durationMs: outcome.settledAt - started,
        error: message,
      };
    } else {
      late = true;
      options.logger.warn({ scope: name, timeoutMs: options.timeoutMs }, 'memory: context scope timed out');
      scopes[name] = { status: 'timeout', candidates: 0, durationMs: outcome.settledAt - started };
    }
  }
  if (late) controller.abort(new Error(`memory scopes still running after ${options.timeoutMs} ms`));
  return { results, scopes };
}
