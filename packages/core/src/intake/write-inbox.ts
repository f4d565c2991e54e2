import type { IntakeResult, Intent, Logger } from '@nexus/protocol';
import type { AdmitIntentOptions, SessionStore } from '../session-store/session-store.ts';
import type { AnsweredDecision } from './decide-access.ts';
import { storeUnavailable } from './intake-refusals.ts';

/** The inbox entry of an intent access answered: what a replay after a restart works from. */
export function inboxEntryOf(
  intent: Intent,
  decision: AnsweredDecision,
  conversationKey: string,
  acceptedAt: number,
): AdmitIntentOptions {
  return {
    channel: intent.channel,
    intentId: intent.id,
    conversationKey,
    kind: decision.action,
    intent,
    decided: decision.intent,
    acceptedAt,
  };
}

/**
 * Inbox: the de-dupe and the inbox write are one transaction; from here the intent survives a
 * restart. `duplicate` when another copy was written first.
 */
export async function writeInbox(
  entry: AdmitIntentOptions,
  context: { sessionStore: SessionStore; logger: Logger },
): Promise<'admitted' | IntakeResult> {
  try {
    const written = await context.sessionStore.admitIntent(entry);
    return written === 'admitted' ? written : { status: 'duplicate' };
  } catch (error) {
    context.logger.error({ err: error }, 'could not write the intent to the inbox');
    return storeUnavailable();
  }
}
