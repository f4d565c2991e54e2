import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { onTestFinished } from 'vitest';

/**
 * Opens one new store file twice, as the gateway and another process (the owner's CLI) do: two
 * connections to the same file in a fresh directory, closed and removed when the test ends.
 */
export function twoConnections<Store extends { close(): void }>(
  fileName: string,
  open: (path: string) => Store,
): [Store, Store] {
  const directory = mkdtempSync(join(tmpdir(), 'nexus-two-connections-'));
  const path = join(directory, fileName);
  const first = open(path);
  const second = open(path);
  onTestFinished(() => {
    first.close();
    second.close();
    rmSync(directory, { recursive: true, force: true });
  });
  return [first, second];
}

/** Waits until the event loop's next pass, when another connection's commit counts (data_version). */
export function nextPassOfTheEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
