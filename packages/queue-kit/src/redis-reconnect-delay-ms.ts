/**
 * How long ioredis waits before its `times`-th reconnection attempt: 100 ms doubling to 2 s, and
 * never giving up (a number is always returned), so a connection outlives any Redis outage and is
 * back within 2 s of Redis. BullMQ's production guide asks for a retry strategy that keeps trying.
 */
export function redisReconnectDelayMs(times: number): number {
  return Math.min(100 * 2 ** Math.min(Math.max(times - 1, 0), 5), 2000);
}
