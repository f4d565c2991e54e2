import type { MemoryView } from './person-memory.ts';
import { relativeTime } from './relative-time.ts';

const channelNames: Record<string, string> = {
  telegram: 'Telegram',
  discord: 'Discord',
  whatsapp: 'WhatsApp',
  web: 'the web chat',
};

export const CATEGORY_LABELS: Record<MemoryView['category'], string> = {
  fact: 'Fact',
  preference: 'Preference',
  pattern: 'Habit',
  event: 'Event',
};

/**
 * Where and when a fact was learned, in the assistant's voice: "You told me on Telegram, 3 days
 * ago" for what the person said, "I picked this up on Discord, yesterday" for what was inferred.
 */
export function provenanceOf(memory: MemoryView, now: number): string {
  const channel =
    memory.learnedOn === undefined ? undefined : (channelNames[memory.learnedOn] ?? memory.learnedOn);
  const where = channel === undefined ? '' : ` on ${channel}`;
  const when = relativeTime(memory.createdAt, now);
  const said = memory.source === 'user_explicit' ? `You told me${where}` : `I picked this up${where}`;
  const edited =
    memory.updatedAt - memory.createdAt > 60_000 ? ` · updated ${relativeTime(memory.updatedAt, now)}` : '';
  return `${said}, ${when}${edited}`;
}
