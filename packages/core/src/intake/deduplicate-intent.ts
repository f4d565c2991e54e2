import type { IntakeResult, Intent, Logger } from '@nexus/protocol';
import type { SessionStore } from '../session-store/session-store.ts';
import { storeUnavailable } from './intake-refusals.ts';
import { dedupeKeyOf, type IntentDeduplicator } from './intent-deduplicator.ts';

/**
 * De-duplicate: an intent seen lately (claimed in memory) or answered before (in the store) is a
 * duplicate. Undefined means claimed here: the pipeline releases the claim if a later step refuses.
 */
export async function deduplicateIntent(
  intent: Intent,
  context: { deduplicator: IntentDeduplicator; sessionStore: SessionStore; logger: Logger },
): Promise<IntakeResult | undefined> {
  if (!context.deduplicator.claim(dedupeKeyOf(intent.channel, intent.id))) return { status: 'duplicate' };
  try {
    const seen = await context.sessionStore.hasIntent({ channel: intent.channel, intentId: intent.id });
    return seen ? { status: 'duplicate' } : undefined;
  } catch (error) {
    context.logger.error({ err: error }, 'session store failed during intake');
    return storeUnavailable();
  }
}
