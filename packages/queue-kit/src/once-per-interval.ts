/**
 * Wraps a report so it runs at most once per `intervalMs`: while Redis is down every connection
 * errors on each reconnection attempt, and one line per connection every 10 s says as much.
 */
export function oncePerInterval<A extends unknown[]>(
  report: (...args: A) => void,
  intervalMs = 10_000,
  now: () => number = Date.now,
): (...args: A) => void {
  let last = Number.NEGATIVE_INFINITY;
  return (...args) => {
    if (now() - last < intervalMs) return;
    last = now();
    report(...args);
  };
}
