import type { AccessMemoryPort } from '../access/access-decision.ts';

const PAGE = 500;

/**
 * Deletes, in each of the groups, the group memories tagged with one of the speakers
 * (`metadata.speaker`, written by extraction and the remember tool in groups). Other members'
 * group memories stay. Returns how many went.
 */
export async function eraseSpeakerGroupMemories(options: {
  memory: AccessMemoryPort;
  groups: readonly string[];
  speakers: readonly string[];
  abortSignal?: AbortSignal;
}): Promise<number> {
  const { memory, groups, abortSignal } = options;
  const speakers = new Set(options.speakers);
  const signal = abortSignal ? { abortSignal } : {};
  let deleted = 0;
  for (const group of groups) {
    const tagged: string[] = [];
    for (let offset = 0; ; offset += PAGE) {
      const page = await memory.list({ userId: group, limit: PAGE, offset, ...signal });
      for (const item of page) {
        const speaker = item.metadata?.speaker;
        if (typeof speaker === 'string' && speakers.has(speaker)) tagged.push(item.id);
      }
      if (page.length < PAGE) break;
    }
    // Deleted after listing, so deleting does not shift the pages being read.
    for (const id of tagged) {
      if ((await memory.delete({ userId: group, id, ...signal })).deleted) deleted += 1;
    }
  }
  return deleted;
}
