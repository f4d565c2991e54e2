import { TokenBucket } from '@nexus/limits-kit';

export interface BucketLimits {
  /** Messages allowed at once. */
  burst: number;
  /** Messages regained per minute. */
  perMinute: number;
}

export interface RateLimiterOptions {
  person: BucketLimits;
  global: BucketLimits;
  now?: () => number;
  /** People tracked at most; full buckets are forgotten first. Default 10 000. */
  maxPeople?: number;
}

export type RateDecision =
  | { allowed: true }
  | { allowed: false; limit: 'person' | 'global'; retryAfterMs: number };

/**
 * Token buckets per person and one for everyone. A person's refused message takes nothing from
 * the global bucket, so one person flooding cannot use up everyone else's allowance.
 */
export interface RateLimiter {
  take(userId: string): RateDecision;
}

export function createRateLimiter(options: RateLimiterOptions): RateLimiter {
  const now = options.now ?? Date.now;
  const maxPeople = options.maxPeople ?? 10_000;
  const people = new Map<string, TokenBucket>();
  const global = bucketFor(options.global);

  function bucketFor(limits: BucketLimits): TokenBucket {
    return new TokenBucket({ capacity: limits.burst, refillPerMs: limits.perMinute / 60_000, now });
  }

  function personBucket(userId: string): TokenBucket {
    let bucket = people.get(userId);
    if (bucket) return bucket;
    if (people.size >= maxPeople) forgetFull();
    bucket = bucketFor(options.person);
    people.set(userId, bucket);
    return bucket;
  }

  function forgetFull(): void {
    for (const [userId, bucket] of people) {
      if (bucket.isFull()) people.delete(userId);
    }
    // Everyone is mid-burst: forget the oldest entries rather than grow without bound.
    for (const userId of people.keys()) {
      if (people.size < maxPeople) break;
      people.delete(userId);
    }
  }

  return {
    take(userId) {
      const bucket = personBucket(userId);
      if (bucket.available() < 1)
        return { allowed: false, limit: 'person', retryAfterMs: bucket.msUntilToken() };
      if (global.available() < 1)
        return { allowed: false, limit: 'global', retryAfterMs: global.msUntilToken() };
      bucket.take();
      global.take();
      return { allowed: true };
    },
  };
}
