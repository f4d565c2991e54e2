/** Polls `condition` until it holds; on timeout throws with `description` so the failure says what never happened. */
export async function waitFor(
  condition: () => boolean | Promise<boolean>,
  options: { description: string; timeoutMs?: number; intervalMs?: number },
): Promise<void> {
  const deadline = Date.now() + (options.timeoutMs ?? 10_000);
  for (;;) {
    if (await condition()) return;
    if (Date.now() > deadline) {
      throw new Error(
        `Timed out after ${options.timeoutMs ?? 10_000} ms waiting for: ${options.description}`,
      );
    }
    await sleep(options.intervalMs ?? 20);
  }
}

export function sleep(milliseconds: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, milliseconds));
}
