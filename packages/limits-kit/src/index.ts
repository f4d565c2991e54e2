export { type BackoffDelayOptions, backoffDelay } from './backoff-delay.ts';
export { decodePathSegment, parseRequestTarget, requestPath } from './parse-request-target.ts';
export { type Settled, settleWithin } from './settle-within.ts';
export { TokenBucket, type TokenBucketOptions } from './token-bucket.ts';
export {
  approximateTokenCounter,
  createTokenCounter,
  sharedTokenCounter,
  type TokenCounter,
} from './token-counter.ts';
