import { EventEmitter } from 'node:events';
import type { Logger } from '@nexus/protocol';
import { describe, expect, it } from 'vitest';
import { CRASH_EXIT_CODE, installCrashPolicy } from './install-crash-policy.ts';

function recordingLogger(entries: Array<{ object: object; message?: string }>): Logger {
  const record = (object: object, message?: string) =>
    entries.push({ object, ...(message ? { message } : {}) });
  const logger: Logger = { debug: record, info: record, warn: record, error: record, child: () => logger };
  return logger;
}

describe('installCrashPolicy', () => {
  it('logs an uncaught exception with its stack, stops gracefully, then exits non-zero', async () => {
    const events = new EventEmitter();
    const entries: Array<{ object: object; message?: string }> = [];
    const steps: string[] = [];
    let finishClose: () => void = () => undefined;
    const exited = new Promise<number>((resolve) => {
      installCrashPolicy({
        events,
        logger: recordingLogger(entries),
        deadlineMs: 60_000,
        close: () => {
          steps.push('close started');
          return new Promise<void>((resolveClose) => {
            finishClose = () => {
              steps.push('close finished');
              resolveClose();
            };
          });
        },
        exit: (code) => {
          steps.push(`exit ${code}`);
          resolve(code);
        },
      });
    });
    const bug = new TypeError('Invalid URL');
    events.emit('uncaughtException', bug);
    // A second failure while stopping is logged, and does not start a second stop.
    events.emit('unhandledRejection', new Error('later'));
    expect(steps).toEqual(['close started']);
    finishClose();
    expect(await exited).toBe(CRASH_EXIT_CODE);
    expect(steps).toEqual(['close started', 'close finished', `exit ${CRASH_EXIT_CODE}`]);
    expect(entries[0]?.object).toMatchObject({ err: bug, kind: 'uncaughtException' });
    expect(entries[1]?.object).toMatchObject({ kind: 'unhandledRejection' });
  });

  it('exits at once when the crash comes before anything is running', async () => {
    const events = new EventEmitter();
    const code = await new Promise<number>((resolve) => {
      installCrashPolicy({
        events,
        logger: recordingLogger([]),
        deadlineMs: 60_000,
        close: () => undefined,
        exit: resolve,
      });
      events.emit('unhandledRejection', 'a string reason');
    });
    expect(code).toBe(CRASH_EXIT_CODE);
  });

  it('still exits non-zero when the graceful stop itself fails', async () => {
    const events = new EventEmitter();
    const entries: Array<{ object: object; message?: string }> = [];
    const code = await new Promise<number>((resolve) => {
      installCrashPolicy({
        events,
        logger: recordingLogger(entries),
        deadlineMs: 60_000,
        close: () => Promise.reject(new Error('store already closed')),
        exit: resolve,
      });
      events.emit('uncaughtException', new Error('bug'));
    });
    expect(code).toBe(CRASH_EXIT_CODE);
    expect(entries.map((entry) => entry.message)).toContain('error while stopping after a crash');
  });
});
