import type { IntentInput } from '@nexus/protocol';

/**
 * Which group messages a channel hands to core: `mentioned` (the default) only those that
 * address the assistant (a mention, a command, a reply to it); `all` every one, with
 * `mentionsAssistant: false` on the rest so a core policy can decide. Direct messages always pass.
 */
export type GroupMessages = 'mentioned' | 'all';

/** The one group gate every channel applies after `to-intent`, before the sink. */
export function passesGroupGate(intent: IntentInput, groupMessages: GroupMessages = 'mentioned'): boolean {
  return intent.conversation.kind === 'direct' || groupMessages === 'all' || intent.mentionsAssistant;
}

/**
 * The group gate for an edit or delete (`intent.revises`): it passes as a message would, and also
 * whenever the message it changes was handed to core (`targetTaken`), so an edit that drops the
 * mention, or a delete (which mentions nobody), still reaches the conversation core answered.
 * A channel that cannot tell passes `false` and relies on the gate alone.
 */
export function passesRevisionGate(
  intent: IntentInput,
  groupMessages: GroupMessages = 'mentioned',
  targetTaken = false,
): boolean {
  return passesGroupGate(intent, groupMessages) || (intent.revises !== undefined && targetTaken);
}
