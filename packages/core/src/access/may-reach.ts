import type { ConversationRef } from '@nexus/protocol';
import type { ResolvedAccessOptions } from './access-options.ts';

/**
 * Whether the assistant may still speak first to this person in this conversation (a reminder set
 * earlier). The same policies as an incoming message, read only: a person whose identity was
 * removed (`/forget-me`, `nexus users remove`) or unapproved since, or a group taken off the
 * allowlist, gets nothing; nothing is created, no pairing code is sent.
 */
export function mayReach(options: ResolvedAccessOptions, target: ConversationRef): boolean {
  const identity = options.store.identities.find({
    channel: target.channel,
    platformId: target.senderPlatformId,
  });
  if (!identity || identity.userId !== target.userId) return false;
  if (target.kind !== 'direct') return listed(options.groupAllowlist, target.channel, target.conversationId);
  const policy = options.directMessagePolicies[target.channel] ?? options.defaultDirectMessagePolicy;
  if (policy === 'disabled') return false;
  return (
    policy === 'open' ||
    identity.approved ||
    listed(options.allowlist, target.channel, target.senderPlatformId)
  );
}

function listed(list: readonly string[], channel: string, id: string): boolean {
  return list.includes(`${channel}:${id}`) || list.includes(`${channel}:*`) || list.includes('*');
}
