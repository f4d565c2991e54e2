import { getCompileCacheDir } from 'node:module';
import { Worker } from 'node:worker_threads';
import { type Logger, silentLogger } from '@nexus/protocol';
import type {
  FromModelThread,
  ModelCallOptions,
  ModelSpec,
  ModelThreadEvent,
  ToModelThread,
} from './thread-messages.ts';
import { postMessageTo, receiveMessage } from './thread-post.ts';

/** What a call in flight hears: its thread's events, or that the thread is gone. */
export interface ModelCallListener {
  onEvent(event: ModelThreadEvent): void;
  onThreadLost(error: ModelThreadError): void;
}

/** A call in flight on a model thread. Both methods end it: no event reaches its listener after. */
export interface ModelCallHandle {
  abort(): void;
  cancel(): void;
}

/** A model thread stopped (crashed, ran out of memory, was terminated) while calls were in flight. */
export class ModelThreadError extends Error {
  override readonly name = 'ModelThreadError';
}

interface ModelThread {
  worker: Worker;
  calls: Map<number, ModelCallListener>;
  /** Models this thread was given the spec of. */
  defined: Set<number>;
  /** What the thread threw before it stopped, if it threw. */
  failure?: Error;
}

const ENTRY = new URL('./model-thread-boot.mjs', import.meta.url);

/**
 * The model threads of a process (`NEXUS_MODEL_THREADS`): worker threads that run the provider's
 * calls, each given to the thread with the fewest calls in flight. A thread that stops fails its
 * calls in flight with a ModelThreadError at once (none hangs), and the next call starts a new
 * one in its place. Idle threads do not keep the process alive.
 */
export class ModelThreadPool {
  private readonly slots: (ModelThread | undefined)[];
  private readonly specs: ModelSpec[] = [];
  private readonly logger: Logger;
  private nextId = 1;
  private closed = false;

  constructor(options: { threads: number; logger?: Logger }) {
    this.logger = options.logger ?? silentLogger;
    this.slots = Array.from({ length: Math.max(1, options.threads) }, () => undefined);
    // Started now, so the first reply does not wait for a thread to load the provider's SDK.
    for (let slot = 0; slot < this.slots.length; slot += 1) this.slots[slot] = this.start(slot);
  }

  /** Registers a provider model; calls name it by the number returned. */
  define(spec: ModelSpec): number {
    this.specs.push(spec);
    const model = this.specs.length - 1;
    // Given to the running threads now, so each builds it before the first call needs it.
    for (const thread of this.slots) if (thread) this.defineOn(thread, model);
    return model;
  }

  /** The running threads (for tests that stop one). */
  workers(): Worker[] {
    return this.slots.flatMap((thread) => (thread ? [thread.worker] : []));
  }

  call(
    model: number,
    type: 'stream' | 'generate' | 'describe',
    options: Omit<ModelCallOptions, 'abortSignal'> | undefined,
    listener: ModelCallListener,
  ): ModelCallHandle {
    const thread = this.leastBusy();
    const id = this.nextId++;
    this.defineOn(thread, model);
    thread.calls.set(id, listener);
    if (thread.calls.size === 1) thread.worker.ref();
    postMessageTo(thread.worker, type === 'describe' ? { type, id, model } : { type, id, model, options });
    const end = (message: 'abort' | 'cancel') => {
      if (!this.forget(thread, id)) return;
      thread.worker.postMessage({ type: message, id } satisfies ToModelThread);
    };
    return { abort: () => end('abort'), cancel: () => end('cancel') };
  }

  /** Stops every thread; calls in flight fail with a ModelThreadError. */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(this.workers().map((worker) => worker.terminate()));
  }

  private leastBusy(): ModelThread {
    if (this.closed) throw new ModelThreadError('The model threads were closed.');
    let best: ModelThread | undefined;
    for (let slot = 0; slot < this.slots.length; slot += 1) {
      const thread = this.slots[slot] ?? this.start(slot);
      this.slots[slot] = thread;
      if (!best || thread.calls.size < best.calls.size) best = thread;
    }
    return best!;
  }

  private defineOn(thread: ModelThread, model: number): void {
    if (thread.defined.has(model)) return;
    thread.defined.add(model);
    thread.worker.postMessage({ type: 'define', model, spec: this.specs[model]! } satisfies ToModelThread);
  }

  /** Removes a call; false when it had already ended. */
  private forget(thread: ModelThread, id: number): boolean {
    if (!thread.calls.delete(id)) return false;
    if (thread.calls.size === 0) thread.worker.unref();
    return true;
  }

  private start(slot: number): ModelThread {
    const worker = new Worker(ENTRY, {
      name: `nexus-model-${slot + 1}`,
      workerData: { compileCacheDir: getCompileCacheDir() },
    });
    const thread: ModelThread = { worker, calls: new Map(), defined: new Set() };
    worker.unref();
    worker.on('message', (data: unknown) => {
      for (const event of receiveMessage(data) as FromModelThread) {
        const listener = thread.calls.get(event.id);
        if (!listener) continue;
        if (
          event.type === 'end' ||
          event.type === 'failed' ||
          event.type === 'result' ||
          event.type === 'described'
        )
          this.forget(thread, event.id);
        // One listener that throws must not keep the batch's other events from their calls.
        try {
          listener.onEvent(event);
        } catch (error) {
          this.logger.error({ err: error, event: event.type }, 'a model call could not take its event');
        }
      }
    });
    worker.on('error', (error) => {
      thread.failure = error;
    });
    worker.on('exit', (exitCode) => this.lost(slot, thread, exitCode));
    return thread;
  }

  private lost(slot: number, thread: ModelThread, exitCode: number): void {
    if (this.slots[slot] === thread) this.slots[slot] = undefined;
    const inFlight = [...thread.calls.values()];
    thread.calls.clear();
    if (this.closed && inFlight.length === 0) return;
    this.logger.warn(
      { thread: slot + 1, exitCode, callsInFlight: inFlight.length, err: thread.failure },
      'a model thread stopped; its calls in flight failed and a new thread takes the next call',
    );
    const error = new ModelThreadError(
      `The model thread stopped (exit code ${exitCode}) while this call was in flight${
        thread.failure ? `: ${thread.failure.message}` : ''
      }.`,
      thread.failure ? { cause: thread.failure } : undefined,
    );
    for (const listener of inFlight) listener.onThreadLost(error);
  }
}

/** The process's model threads, one pool per thread count, shared by every model built here. */
const sharedPools = new Map<number, ModelThreadPool>();

export function sharedModelThreads(threads: number, logger?: Logger): ModelThreadPool {
  let pool = sharedPools.get(threads);
  if (!pool) {
    pool = new ModelThreadPool({ threads, ...(logger ? { logger } : {}) });
    sharedPools.set(threads, pool);
  }
  return pool;
}
