import type { Intent } from '@nexus/protocol';

/**
 * Group memories are stored under a reserved memory user id, `group:<channel>:<conversation id>`,
 * so the store's per-person partitioning keeps them apart from every person's. Person ids are
 * `<channel>:<platform id>`; only a channel named `group` could produce one of this form, and a
 * speaker whose id has it never gets any memory (see `memorySubjectOf`).
 */
export const GROUP_MEMORY_PREFIX = 'group:';

/** A group that its owner declared to have one human member: that person's memory is used there. */
export interface GroupPersonalMemoryEntry {
  /** `<channel>:<conversation id>`, exactly as the channel reports the group. */
  conversation: string;
  /** The only human in the group (a person id, `<channel>:<platform id>` or a linked person). */
  userId: string;
}

/** Whose memory a turn reads and writes. */
export type MemorySubject =
  | { kind: 'person'; userId: string }
  | { kind: 'group'; userId: string; speakerId: string }
  | { kind: 'none'; reason: string };

export function groupMemoryId(channel: string, conversationId: string): string {
  return `${GROUP_MEMORY_PREFIX}${channel}:${conversationId}`;
}

export function isGroupMemoryId(userId: string): boolean {
  return userId.startsWith(GROUP_MEMORY_PREFIX);
}

/**
 * Direct chats use the speaker's memory. Group chats and threads use the group's memory and never
 * a person's, because everything in the prompt and every tool result is posted to people who are
 * not that person. The one exception is a group the owner listed as having that speaker as its
 * only human member; a channel cannot tell membership, so that list is the owner's statement.
 */
export function memorySubjectOf(
  intent: Pick<Intent, 'channel' | 'userId' | 'conversation'>,
  groupPersonalMemory: readonly GroupPersonalMemoryEntry[] = [],
): MemorySubject {
  if (isGroupMemoryId(intent.userId)) {
    return { kind: 'none', reason: `person id "${intent.userId}" is in the reserved group namespace` };
  }
  if (intent.conversation.kind === 'direct') return { kind: 'person', userId: intent.userId };
  const conversation = `${intent.channel}:${intent.conversation.id}`;
  if (
    groupPersonalMemory.some((entry) => entry.conversation === conversation && entry.userId === intent.userId)
  ) {
    return { kind: 'person', userId: intent.userId };
  }
  return {
    kind: 'group',
    userId: groupMemoryId(intent.channel, intent.conversation.id),
    speakerId: intent.userId,
  };
}

/** Put ahead of the memory block in group turns, so the model knows whose facts it holds. */
export const GROUP_MEMORY_NOTE =
  'This is a group chat. You have no personal memory of any member here: what you remember below is about this group and is visible to all of its members. Do not claim to remember private things about anyone in this chat.';
