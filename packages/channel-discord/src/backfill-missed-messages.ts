import type { Logger } from '@nexus/protocol';
import type { Client, Message } from 'discord.js';
import type { ChannelCursorRow } from './discord-channel-cursor.ts';

/** Discord's page size limit for channel history. */
const PAGE_SIZE = 100;

export interface BackfillOptions {
  client: Client<true>;
  cursors: ChannelCursorRow[];
  /** The live path: de-duplication, addressing rules and the cursor apply as for gateway events. */
  onMessage(message: Message): void;
  isStopped(): boolean;
  logger: Logger;
}

/**
 * Reads each known channel's history after its cursor (`GET /channels/{id}/messages?after=`),
 * oldest first, and hands every message to the live path. Discord answers each page newest
 * first, so pages are sorted before use. A channel that fails (deleted, access lost, Discord
 * unreachable) is logged and skipped: the next session start tries again.
 */
export async function backfillMissedMessages(options: BackfillOptions): Promise<void> {
  const { client, logger } = options;
  let fetched = 0;
  for (const { channelId, lastMessageId } of options.cursors) {
    if (options.isStopped()) return;
    try {
      const channel = await client.channels.fetch(channelId);
      if (!channel?.isTextBased()) continue;
      let after = lastMessageId;
      for (;;) {
        const page = await channel.messages.fetch({ after, limit: PAGE_SIZE, cache: false });
        const ordered = [...page.values()].sort((a, b) => compareIds(a.id, b.id));
        for (const message of ordered) {
          if (options.isStopped()) return;
          options.onMessage(message);
        }
        fetched += ordered.length;
        const newest = ordered.at(-1);
        if (!newest || ordered.length < PAGE_SIZE) break;
        after = newest.id;
      }
    } catch (error) {
      logger.warn({ channelId, err: error }, 'could not read missed discord messages');
    }
  }
  if (fetched > 0) logger.info({ fetched }, 'read discord messages sent while disconnected');
}

function compareIds(a: string, b: string): number {
  const difference = BigInt(a) - BigInt(b);
  return difference === 0n ? 0 : difference > 0n ? 1 : -1;
}
