import { hash } from 'node:crypto';
import type { Intent } from '@nexus/protocol';

/**
 * The id of the reply to an intent, the same every time it is worked out: a turn run again after
 * a crash (replayed from the inbox) answers under the same id, so a client that already has that
 * reply replaces it instead of showing a second one.
 */
export function replyIdFor(intent: Pick<Intent, 'channel' | 'id'>): string {
  return `r-${hash('sha256', `${intent.channel}\u0000${intent.id}`, 'base64url').slice(0, 22)}`;
}
