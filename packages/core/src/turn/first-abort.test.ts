import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { firstAbortOf } from './first-abort.ts';

describe('firstAbortOf', () => {
  it('aborts with the reason of the first signal to abort, and lets go of the others', () => {
    const shutdown = new AbortController();
    const stop = new AbortController();
    const following = firstAbortOf([shutdown.signal, stop.signal]);
    expect(following.signal.aborted).toBe(false);
    stop.abort('stopped by the person');
    expect(following.signal.aborted).toBe(true);
    expect(following.signal.reason).toBe('stopped by the person');
    shutdown.abort('shutting down');
    expect(following.signal.reason).toBe('stopped by the person');
    expect(getEventListeners(shutdown.signal, 'abort')).toHaveLength(0);
  });

  it('is aborted at once when a signal already is', () => {
    const shutdown = new AbortController();
    shutdown.abort('shutting down');
    const stop = new AbortController();
    const following = firstAbortOf([shutdown.signal, stop.signal]);
    expect(following.signal.reason).toBe('shutting down');
    expect(getEventListeners(stop.signal, 'abort')).toHaveLength(0);
  });

  it('leaves no listener on the long-lived signal once disposed, and no longer follows it', () => {
    const shutdown = new AbortController();
    const before = getEventListeners(shutdown.signal, 'abort').length;
    for (let turn = 0; turn < 3; turn += 1)
      firstAbortOf([shutdown.signal, new AbortController().signal]).dispose();
    const following = firstAbortOf([shutdown.signal, new AbortController().signal]);
    following.dispose();
    expect(getEventListeners(shutdown.signal, 'abort')).toHaveLength(before);
    shutdown.abort('shutting down');
    expect(following.signal.aborted).toBe(false);
  });
});
