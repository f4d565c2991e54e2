import { type Intent, NexusError } from '@nexus/protocol';
import type { AccessDecision, AccessMemoryPort } from '../access/access-decision.ts';
import { ACCESS_MESSAGES } from '../access/access-messages.ts';
import { replyWith } from '../access/reply-with.ts';

/** Memories per `/memories` page; short enough to read on a phone. */
export const MEMORIES_PAGE_SIZE = 20;
const SHOWN_CHARS = 300;
/** Listings remembered for `/forget <n>`; the oldest is dropped beyond this many people. */
const REMEMBERED_LISTINGS = 1_000;

/**
 * What the last `/memories` page showed each memory owner (a person, or a group's memory id):
 * number → memory id. `/forget <n>` deletes the memory that number pointed at when the person saw
 * it, so a memory added or deleted in between never shifts which one goes. It lives in the
 * process: after a restart the person lists again first.
 */
export type MemoryListings = Map<string, { ids: string[]; contents: string[] }>;

export function createMemoryListings(): MemoryListings {
  return new Map();
}

/** `/memories [page]` for `ownerId` (the person in a direct chat, the group's memory id in a group). */
export function listMemoryPage(options: {
  intent: Intent;
  memory: AccessMemoryPort;
  listings: MemoryListings;
  ownerId: string;
  argument: string;
  whose: 'person' | 'group';
}): AccessDecision {
  const { intent, memory, listings, ownerId, whose } = options;
  const page = options.argument === '' ? 1 : Number(options.argument);
  if (!Number.isSafeInteger(page) || page < 1) {
    return replyWith(intent, `"${options.argument.slice(0, 40)}" is not a page number. Try /memories 2.`);
  }
  return replyWith(intent, async ({ abortSignal }) => {
    const offset = (page - 1) * MEMORIES_PAGE_SIZE;
    const rows = await memory
      .list({ userId: ownerId, limit: MEMORIES_PAGE_SIZE + 1, offset, abortSignal })
      .catch((error: unknown) => unavailable(error));
    const shown = rows.slice(0, MEMORIES_PAGE_SIZE);
    if (shown.length === 0) {
      if (page > 1) return `There is no page ${page}. Send /memories to start from the first page.`;
      return whose === 'group' ? ACCESS_MESSAGES.groupMemoriesEmpty() : ACCESS_MESSAGES.memoriesEmpty();
    }
    const remembered = {
      ids: Array<string>(offset)
        .fill('')
        .concat(shown.map((row) => row.id)),
      contents: Array<string>(offset)
        .fill('')
        .concat(shown.map((row) => oneLine(row.content))),
    };
    listings.delete(ownerId);
    listings.set(ownerId, remembered);
    while (listings.size > REMEMBERED_LISTINGS) listings.delete(listings.keys().next().value as string);
    const lines = shown.map(
      (row, index) =>
        `${offset + index + 1}. ${oneLine(row.content)}${row.category ? ` (${row.category})` : ''}`,
    );
    const more = rows.length > MEMORIES_PAGE_SIZE;
    return [
      whose === 'group'
        ? 'Here is what I remember about this group (every member can see this):'
        : 'Here is what I remember about you:',
      ...lines,
      '',
      ...(more ? [`Send /memories ${page + 1} for the next page.`] : []),
      'Send /forget and a number (like /forget 1) to delete one memory.',
      ...(whose === 'person' ? ['Send /forget-me to delete all of it.'] : []),
    ].join('\n');
  });
}

/** `/forget <n>`: deletes the memory shown as number n on the owner's last `/memories` page. */
export function forgetOneMemory(options: {
  intent: Intent;
  memory: AccessMemoryPort;
  listings: MemoryListings;
  ownerId: string;
  argument: string;
}): AccessDecision {
  const { intent, memory, listings, ownerId } = options;
  const number = Number(options.argument);
  if (options.argument === '' || !Number.isSafeInteger(number) || number < 1) {
    return replyWith(
      intent,
      'Send /forget with the number of a memory from /memories, like /forget 3. To delete everything, send /forget-me.',
    );
  }
  const listing = listings.get(ownerId);
  const id = listing?.ids[number - 1];
  if (!listing || !id) {
    return replyWith(
      intent,
      `I have no memory numbered ${number} on your last list. Send /memories to see the numbers, then /forget and the number.`,
    );
  }
  return replyWith(intent, async ({ abortSignal }) => {
    const result = await memory
      .delete({ userId: ownerId, id, abortSignal })
      .catch((error: unknown) => unavailable(error));
    // The number now points at nothing, so sending the same /forget twice cannot delete another memory.
    listing.ids[number - 1] = '';
    if (!result.deleted) return `Memory ${number} was already gone. Send /memories to see what is left.`;
    return `Deleted memory ${number}: "${listing.contents[number - 1]}"`;
  });
}

function oneLine(content: string): string {
  const text = content.replace(/\s+/g, ' ').trim();
  return text.length > SHOWN_CHARS ? `${text.slice(0, SHOWN_CHARS - 1)}…` : text;
}

function unavailable(error: unknown): never {
  throw new NexusError({
    code: 'memory_unavailable',
    message: 'I could not reach my memory just now. Please try again in a moment.',
    retryable: true,
    cause: error,
  });
}
