import { backoffDelay } from '@nexus/channel-kit';
import { HttpError, type Transformer } from 'grammy';

/**
 * Retries a Bot API call a few times when Telegram could not be reached (HttpError), with short
 * jittered pauses. getUpdates is left alone: the runner has its own retry loop. A message whose
 * request reached Telegram but whose answer was lost may rarely arrive twice; losing replies on
 * every network blip would be worse.
 */
export function retryNetworkErrors(options: { maxRetries: number; initialMs?: number }): Transformer {
  return async (previous, method, payload, signal) => {
    for (let attempt = 0; ; attempt++) {
      try {
        return await previous(method, payload, signal);
      } catch (error) {
        const retry = method !== 'getUpdates' && error instanceof HttpError && !signal?.aborted;
        if (!retry || attempt >= options.maxRetries) throw error;
        const delayMs = backoffDelay({ attempt, initialMs: options.initialMs ?? 300, maxMs: 5_000 });
        await new Promise((resolve) => setTimeout(resolve, delayMs));
      }
    }
  };
}
