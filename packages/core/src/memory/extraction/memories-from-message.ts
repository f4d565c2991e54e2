import type { MemoryPort, MemoryRecord } from '@nexus/protocol';

/** The largest page the memory service lists at once. */
const PAGE = 1_000;

/**
 * The memories extraction learned from one message: each records the message's intent id when
 * written (a restated fact merged into an existing memory carries the newest message's id, so it
 * stays when an older message is deleted). The port has no metadata filter, so the person's
 * memories are read page by page; edits and deletes are rare enough for that.
 */
export async function memoriesFromMessage(options: {
  memory: MemoryPort;
  userId: string;
  messageIntentId: string;
  abortSignal?: AbortSignal;
}): Promise<MemoryRecord[]> {
  const found: MemoryRecord[] = [];
  for (let offset = 0; ; offset += PAGE) {
    const page = await options.memory.list({
      userId: options.userId,
      scope: 'user',
      limit: PAGE,
      offset,
      ...(options.abortSignal ? { abortSignal: options.abortSignal } : {}),
    });
    for (const record of page) {
      if (record.metadata.via === 'extraction' && record.metadata.intentId === options.messageIntentId)
        found.push(record);
    }
    if (page.length < PAGE) return found;
  }
}
