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
