import type { Logger } from '@nexus/protocol';
import type { ContextScopeName, ContextScopeReport } from '../model/memory-api.ts';

export type ContextScopeRunner<T> = (abortSignal: AbortSignal) => Promise<T[]>;

const TIMED_OUT = Symbol('timed out');

/**
 * Runs the scopes in parallel, each under its own timeout. A late or failing scope is aborted,
 * reported and left out; the others still count, so one slow backend never blocks a reply.
 */
export async function runContextScopes<T, Name extends string = ContextScopeName>(options: {
  runners: Record<Name, ContextScopeRunner<T> | undefined>;
  timeoutMs: number;
  abortSignal?: AbortSignal | undefined;
  logger: Logger;
}): Promise<{ results: T[]; scopes: Record<Name, ContextScopeReport> }> {
  const names = Object.keys(options.runners) as Name[];
  const outcomes = await Promise.all(
    names.map(async (name): Promise<[Name, ContextScopeReport, T[]]> => {
      const runner = options.runners[name];
      if (!runner) return [name, { status: 'skipped', candidates: 0, durationMs: 0 }, []];
      const started = performance.now();
      const controller = new AbortController();
      const abortFromCaller = () => controller.abort(options.abortSignal?.reason);
      options.abortSignal?.addEventListener('abort', abortFromCaller, { once: true });
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<typeof TIMED_OUT>((resolve) => {
        timer = setTimeout(() => resolve(TIMED_OUT), options.timeoutMs);
      });
      try {
        const result = await Promise.race([runner(controller.signal), timeout]);
        const durationMs = performance.now() - started;
        if (result === TIMED_OUT) {
          controller.abort(new Error(`memory scope ${name} timed out`));
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
      } finally {
        clearTimeout(timer);
        options.abortSignal?.removeEventListener('abort', abortFromCaller);
      }
    }),
  );
  const scopes = {} as Record<Name, ContextScopeReport>;
  const results: T[] = [];
  for (const [name, report, found] of outcomes) {
    scopes[name] = report;
    results.push(...found);
  }
  return { results, scopes };
}
