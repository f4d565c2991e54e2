import { getEventListeners } from 'node:events';
import { silentLogger } from '@nexus/protocol';
import { describe, expect, it } from 'vitest';
import { runContextScopes } from './context-scopes.ts';

/** A scope that answers only when its signal aborts (then with nothing), recording the reason. */
function lateScope(seen: { aborted?: unknown }) {
  return (signal: AbortSignal) =>
    new Promise<string[]>((resolve) =>
      signal.addEventListener(
        'abort',
        () => {
          seen.aborted = signal.reason;
          resolve([]);
        },
        { once: true },
      ),
    );
}

describe('runContextScopes', () => {
  it('keeps what the scopes in time found and aborts every late one at the deadline', async () => {
    const late1: { aborted?: unknown } = {};
    const late2: { aborted?: unknown } = {};
    let fastSawAbort: boolean | undefined;
    const started = performance.now();
    const { results, scopes } = await runContextScopes<string, 'fast' | 'late1' | 'late2' | 'none'>({
      runners: {
        fast: async (signal) => {
          fastSawAbort = signal.aborted;
          return ['a', 'b'];
        },
        late1: lateScope(late1),
        late2: lateScope(late2),
        none: undefined,
      },
      timeoutMs: 40,
      logger: silentLogger,
    });
    expect(performance.now() - started).toBeGreaterThanOrEqual(35);
    expect(results).toEqual(['a', 'b']);
    expect(fastSawAbort).toBe(false);
    expect(scopes.fast).toMatchObject({ status: 'ok', candidates: 2 });
    expect(scopes.late1).toMatchObject({ status: 'timeout', candidates: 0 });
    expect(scopes.late2).toMatchObject({ status: 'timeout', candidates: 0 });
    expect(scopes.none).toEqual({ status: 'skipped', candidates: 0, durationMs: 0 });
    expect(String(late1.aborted)).toMatch(/still running after 40 ms/);
    expect(late2.aborted).toBe(late1.aborted);
  });

  it('reports a failing scope as an error and still answers with the others', async () => {
    const { results, scopes } = await runContextScopes<string, 'ok' | 'broken'>({
      runners: {
        ok: async () => ['kept'],
        broken: async () => {
          throw new Error('store unavailable');
        },
      },
      timeoutMs: 1000,
      logger: silentLogger,
    });
    expect(results).toEqual(['kept']);
    expect(scopes.broken).toMatchObject({ status: 'error', error: 'store unavailable' });
  });

  it('reports a scope that throws before answering as an error and still waits for the others', async () => {
    const { results, scopes } = await runContextScopes<string, 'throws' | 'later'>({
      runners: {
        throws: () => {
          throw new Error('no connection');
        },
        later: () => new Promise((resolve) => setTimeout(() => resolve(['found']), 20)),
      },
      timeoutMs: 1000,
      logger: silentLogger,
    });
    expect(results).toEqual(['found']);
    expect(scopes.throws).toMatchObject({ status: 'error', error: 'no connection' });
    expect(scopes.later).toMatchObject({ status: 'ok', candidates: 1 });
  });

  it('logs a late scope that fails once aborted as timed out only', async () => {
    const warnings: string[] = [];
    const logger = {
      ...silentLogger,
      warn: (_object: object, message?: string) => warnings.push(String(message)),
    };
    const { scopes } = await runContextScopes<string, 'late'>({
      runners: {
        late: (signal) =>
          new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(signal.reason))),
      },
      timeoutMs: 20,
      logger,
    });
    // The rejection lands a microtask after the answer: give it the chance to be logged.
    await new Promise((resolve) => setImmediate(resolve));
    expect(scopes.late).toMatchObject({ status: 'timeout' });
    expect(warnings).toEqual(['memory: context scope timed out']);
  });

  it("passes the caller's abort to the scopes still running", async () => {
    const caller = new AbortController();
    const running: { aborted?: unknown } = {};
    const answer = runContextScopes<string, 'slow'>({
      runners: { slow: lateScope(running) },
      timeoutMs: 10_000,
      abortSignal: caller.signal,
      logger: silentLogger,
    });
    caller.abort(new Error('the person pressed Stop'));
    const { scopes } = await answer;
    expect(String(running.aborted)).toMatch(/pressed Stop/);
    expect(scopes.slow).toMatchObject({ status: 'ok', candidates: 0 });
  });

  it("leaves no listener on the caller's signal once it has answered", async () => {
    const caller = new AbortController();
    for (let run = 0; run < 3; run += 1)
      await runContextScopes<string, 'a' | 'b'>({
        runners: { a: async () => ['x'], b: async () => [] },
        timeoutMs: 1000,
        abortSignal: caller.signal,
        logger: silentLogger,
      });
    expect(getEventListeners(caller.signal, 'abort')).toHaveLength(0);
  });
});
