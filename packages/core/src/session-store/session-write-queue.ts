import type { DatabaseSync } from 'node:sqlite';
import { NexusError } from '@nexus/protocol';
import { aloneInTransaction, GroupCommit, inSavepoint, inTransaction } from '@nexus/sqlite-kit';

interface QueuedWrite {
  operation: () => unknown;
  /** Only its last statement changes anything: needs no savepoint (see `writeOne`). */
  oneStatement: boolean;
  /** Set for a stored turn: a history read of that conversation must commit it first. */
  conversationKey: string | undefined;
  /** Runs once the write is committed (not when it failed or its transaction did). */
  committed: (() => void) | undefined;
}

/**
 * The session store's writes and whether it is open. Writes queued in one event-loop turn share
 * one transaction (group commit), each in its own savepoint so a failing write undoes only
 * itself (a write of one statement needs none, nor does a write committed alone); each promise
 * settles after that commit. A read first commits what is queued (all of
 * it, or only its conversation's for a history read), so nothing reads around a pending write.
 */
export class SessionWriteQueue {
  readonly #database: DatabaseSync;
  readonly #callbackFailed: () => void;
  readonly #writes = new GroupCommit<QueuedWrite, unknown>((queued) => this.#commit(queued));
  // How many writes of each conversation wait in the queue: a history read flushes only when its
  // own conversation has one, and under load the queue holds hundreds of other writes (scanning
  // them on every read was 1.3% of the gateway's CPU under bench:gateway).
  readonly #queuedByConversation = new Map<string, number>();
  #closed = false;

  /** `callbackFailed` runs when a `committed` callback threw: the writes are in the file anyway. */
  constructor(database: DatabaseSync, callbackFailed: () => void) {
    this.#database = database;
    this.#callbackFailed = callbackFailed;
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** Throws (synchronously) once the store is closed. */
  ensureOpen(): void {
    if (this.#closed) throw new NexusError({ code: 'internal', message: 'The session store is closed.' });
  }

  /** Queues a write (throws when closed); `conversationKey` marks a stored turn of that conversation. */
  write<R>(operation: () => R, conversationKey?: string, committed?: () => void): Promise<R> {
    this.ensureOpen();
    if (conversationKey !== undefined)
      this.#queuedByConversation.set(
        conversationKey,
        (this.#queuedByConversation.get(conversationKey) ?? 0) + 1,
      );
    return this.#writes.add({ operation, oneStatement: false, conversationKey, committed }) as Promise<R>;
  }

  /**
   * Queues a write whose only change is made by its last statement (reads may come before it), and
   * nothing after that statement throws: SQLite undoes a failed statement alone, so it runs
   * without a savepoint (see `aloneInTransaction`). Most of a turn's writes are one statement.
   */
  writeOne<R>(operation: () => R): Promise<R> {
    this.ensureOpen();
    return this.#writes.add({
      operation,
      oneStatement: true,
      conversationKey: undefined,
      committed: undefined,
    }) as Promise<R>;
  }

  /** Ensures the store is open and commits queued writes, so a read sees them. */
  settle(): void {
    this.ensureOpen();
    this.#writes.flush();
  }

  /** Like `settle`, but commits only when a turn of this conversation is queued; other writes stay batched. */
  settleConversation(conversationKey: string): void {
    this.ensureOpen();
    if (this.#queuedByConversation.has(conversationKey)) this.#writes.flush();
  }

  /** Commits what is queued; every write after this throws. */
  close(): void {
    this.#writes.flush();
    this.#closed = true;
  }

  #commit(queued: readonly QueuedWrite[]): unknown[] {
    // Out of the queue from here, whether the commit succeeds or not.
    for (const { conversationKey } of queued) {
      if (conversationKey === undefined) continue;
      const left = (this.#queuedByConversation.get(conversationKey) ?? 1) - 1;
      if (left > 0) this.#queuedByConversation.set(conversationKey, left);
      else this.#queuedByConversation.delete(conversationKey);
    }
    const outcomes = inTransaction(this.#database, (): unknown[] => {
      // Alone in its transaction, a write that throws is undone with it (and its promise rejected).
      if (queued.length === 1) return [queued[0]?.operation()];
      return queued.map(({ operation, oneStatement }) =>
        oneStatement ? aloneInTransaction(this.#database, operation) : inSavepoint(this.#database, operation),
      );
    });
    // Committed: before any read can run (a read flushes first, synchronously). The writes are
    // in the file whatever happens here, so a failure only costs the cache.
    try {
      queued.forEach(({ committed }, index) => {
        if (!(outcomes[index] instanceof Error)) committed?.();
      });
    } catch {
      this.#callbackFailed();
    }
    return outcomes;
  }
}
