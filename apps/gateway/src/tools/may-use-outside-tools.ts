import type { Intent } from '@nexus/protocol';

export interface OutsideToolsPolicy {
  /** Person ids or `<channel>:<platform id>` entries, or `*`; the web chat is always allowed. */
  allowedPeople?: readonly string[];
  inGroups: boolean;
}

/**
 * Owner-only by default: outside tools reach other systems with the owner's credentials, so they
 * go to the web chat (the owner's, behind the gateway token) and to the people the owner listed;
 * never to strangers, and in groups only when the owner turned that on.
 */
export function mayUseOutsideTools(intent: Intent, policy: OutsideToolsPolicy): boolean {
  if (intent.conversation.kind !== 'direct' && !policy.inGroups) return false;
  if (intent.channel === 'web') return true;
  const allowed = policy.allowedPeople ?? [];
  return (
    allowed.includes('*') ||
    allowed.includes(intent.userId) ||
    allowed.includes(`${intent.channel}:${intent.sender.platformId}`) ||
    allowed.includes(`${intent.channel}:*`)
  );
}
