import type { Intent } from '@nexus/protocol';
import type { AccessDecision, AccessReply } from './access-decision.ts';

/** A decision to answer with fixed text, or with text computed in the conversation's lane. */
export function replyWith(intent: Intent, text: string | AccessReply): AccessDecision {
  return { action: 'reply', intent, reply: typeof text === 'string' ? async () => text : text };
}
