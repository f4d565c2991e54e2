import type { ClientConnection } from './client-connection.ts';

const NONE: ReadonlySet<ClientConnection> = new Set();

/** Open connections, indexed by client so one reply reaches every tab of the same browser. */
export class ConnectionRegistry {
  readonly #all = new Set<ClientConnection>();
  readonly #byClient = new Map<string, Set<ClientConnection>>();
  #waiters: Array<() => void> = [];

  get size(): number {
    return this.#all.size;
  }

  add(connection: ClientConnection): void {
    this.#all.add(connection);
  }

  /** Files a connection under its client once `hello` named it. */
  assign(connection: ClientConnection, clientId: string): void {
    let connections = this.#byClient.get(clientId);
    if (connections === undefined) {
      connections = new Set();
      this.#byClient.set(clientId, connections);
    }
    connections.add(connection);
  }

  remove(connection: ClientConnection): void {
    this.#all.delete(connection);
    const clientId = connection.clientId;
    if (clientId !== undefined) {
      const connections = this.#byClient.get(clientId);
      connections?.delete(connection);
      if (connections?.size === 0) this.#byClient.delete(clientId);
    }
    if (this.#all.size === 0) {
      const waiters = this.#waiters;
      this.#waiters = [];
      for (const resolve of waiters) resolve();
    }
  }

  /** A snapshot, safe to iterate while connections close. */
  all(): ClientConnection[] {
    return [...this.#all];
  }

  ofClient(clientId: string): ReadonlySet<ClientConnection> {
    return this.#byClient.get(clientId) ?? NONE;
  }

  /** Resolves when no connection is left, or after `timeoutMs`, or on abort, whichever comes first. */
  drained(timeoutMs: number, abortSignal?: AbortSignal): Promise<void> {
    if (this.#all.size === 0 || abortSignal?.aborted) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        abortSignal?.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, timeoutMs);
      abortSignal?.addEventListener('abort', done, { once: true });
      this.#waiters.push(done);
    });
  }
}
