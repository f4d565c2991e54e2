import type { IntakeResult } from '@nexus/protocol';
import type { ConversationLanes } from '../lanes/conversation-lanes.ts';
import { laneFull, shuttingDown } from './intake-refusals.ts';

/**
 * Lane room: checked before the inbox write, because what is written is never refused
 * afterwards. Shutdown may have begun while the earlier steps awaited the store.
 */
export function checkLaneRoom(
  conversationKey: string,
  context: { accepting: boolean; lanes: ConversationLanes },
): IntakeResult | undefined {
  if (!context.accepting) return shuttingDown();
  return context.lanes.hasRoom(conversationKey) ? undefined : laneFull();
}
