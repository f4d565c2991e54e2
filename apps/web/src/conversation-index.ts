import type { ChatMessage } from './conversation-state.ts';

/** One conversation as the conversations list shows it. */
export interface ConversationSummary {
  conversationId: string;
  title: string;
  /** Set when the person renamed it; the title then no longer follows the first message. */
  renamed?: boolean;
  createdAt: number;
  /** When a message was last added, changed or answered. */
  updatedAt: number;
  /** Messages and server events seen when `updatedAt` was set; a write that changes neither is no activity. */
  activity?: number;
}

export const MAX_TITLE_CHARS = 80;
const conversationIdPattern = /^[A-Za-z0-9_-]{1,128}$/;

export function isConversationId(value: unknown): value is string {
  return typeof value === 'string' && conversationIdPattern.test(value);
}

/** The first words the person wrote (or the first attachment's name), as a one-line title. */
export function titleFromMessages(messages: readonly ChatMessage[]): string {
  const first = messages.find((message) => message.role === 'user' && !message.deleted);
  if (first === undefined) return 'New conversation';
  const text = first.text.replace(/\s+/g, ' ').trim();
  if (text === '') {
    const attachment = first.attachments?.[0];
    return attachment?.kind === 'voice' ? 'Voice note' : (attachment?.name ?? 'Attachment');
  }
  return text.length <= MAX_TITLE_CHARS ? text : `${text.slice(0, MAX_TITLE_CHARS - 1).trimEnd()}…`;
}

/** Keeps the valid entries of a stored index, newest first, one per id. */
export function toConversationIndex(value: unknown): ConversationSummary[] {
  if (!Array.isArray(value)) return [];
  const seen = new Set<string>();
  const entries: ConversationSummary[] = [];
  for (const entry of value) {
    if (typeof entry !== 'object' || entry === null) continue;
    const { conversationId, title, renamed, createdAt, updatedAt, activity } = entry as Record<
      string,
      unknown
    >;
    if (!isConversationId(conversationId) || seen.has(conversationId) || typeof title !== 'string') continue;
    if (!isTime(createdAt) || !isTime(updatedAt)) continue;
    seen.add(conversationId);
    entries.push({
      conversationId,
      title: title.slice(0, MAX_TITLE_CHARS) || 'Untitled',
      ...(renamed === true ? { renamed: true } : {}),
      createdAt,
      updatedAt,
      ...(isTime(activity) ? { activity } : {}),
    });
  }
  return entries.sort((a, b) => b.updatedAt - a.updatedAt);
}

/** Case-insensitive match of every word of `query` in the title (accents ignored). */
export function matchesQuery(summary: ConversationSummary, query: string): boolean {
  const haystack = fold(summary.title);
  return fold(query)
    .split(/\s+/)
    .filter(Boolean)
    .every((word) => haystack.includes(word));
}

function fold(text: string): string {
  return text.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();
}

function isTime(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}
