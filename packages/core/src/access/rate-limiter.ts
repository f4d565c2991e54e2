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

interface Bucket {
  tokens: number;
  updatedAt: number;
}

export function createRateLimiter(options: RateLimiterOptions): RateLimiter {
  const now = options.now ?? Date.now;
  const maxPeople = options.maxPeople ?? 10_000;
  const people = new Map<string, Bucket>();
  const global: Bucket = { tokens: options.global.burst, updatedAt: now() };

  function refill(bucket: Bucket, limits: BucketLimits, at: number): void {
    const gained = ((at - bucket.updatedAt) * limits.perMinute) / 60_000;
    bucket.tokens = Math.min(limits.burst, bucket.tokens + gained);
    bucket.updatedAt = at;
  }

  function waitFor(bucket: Bucket, limits: BucketLimits): number {
    return Math.ceil(((1 - bucket.tokens) * 60_000) / limits.perMinute);
  }

  function personBucket(userId: string, at: number): Bucket {
    let bucket = people.get(userId);
    if (bucket) return bucket;
    if (people.size >= maxPeople) forgetFull(at);
    bucket = { tokens: options.person.burst, updatedAt: at };
    people.set(userId, bucket);
    return bucket;
  }

  function forgetFull(at: number): void {
    for (const [userId, bucket] of people) {
      refill(bucket, options.person, at);
      if (bucket.tokens >= options.person.burst) people.delete(userId);
    }
    // Everyone is mid-burst: forget the oldest entries rather than grow without bound.
    for (const userId of people.keys()) {
      if (people.size < maxPeople) break;
      people.delete(userId);
    }
  }

  return {
    take(userId) {
      const at = now();
      const bucket = personBucket(userId, at);
      refill(bucket, options.person, at);
      if (bucket.tokens < 1) {
        return { allowed: false, limit: 'person', retryAfterMs: waitFor(bucket, options.person) };
      }
      refill(global, options.global, at);
      if (global.tokens < 1) {
        return { allowed: false, limit: 'global', retryAfterMs: waitFor(global, options.global) };
      }
      bucket.tokens -= 1;
      global.tokens -= 1;
      return { allowed: true };
    },
  };
}
