import type { DatabaseSync } from 'node:sqlite';

export interface ChannelCursorRow {
  channelId: string;
  /** Every message in the channel up to this id was taken by core (or was not for the bot). */
  lastMessageId: string;
}

/**
 * Per Discord channel, the newest message id up to which everything was taken by core. Discord
 * does not redeliver what a disconnected bot missed, so after a restart or a fresh session the
 * adapter reads each channel's history after its cursor. One small SQLite file of the adapter's
 * own (packages do not reach into core's stores).
 */
export interface DiscordChannelCursor {
  list(): ChannelCursorRow[];
  /** Starts a cursor just below `messageId` for a channel seen for the first time. */
  ensure(channelId: string, messageId: string): void;
  /** Moves a channel's cursor forward to `messageId`, never back. */
  advance(channelId: string, messageId: string): void;
}

/** Migration 1 of the adapter's file (see `open-discord-database.ts`). */
export const channelCursorSchema = `
CREATE TABLE IF NOT EXISTS discord_channel_cursor (
  channel_id TEXT PRIMARY KEY,
  last_message_id TEXT NOT NULL,
  updated_at INTEGER NOT NULL
) WITHOUT ROWID;
`;

/** On a file from `openDiscordDatabase` (`:memory:`: cursor lost on restart, no backfill across processes). */
export function openDiscordChannelCursor(database: DatabaseSync): DiscordChannelCursor {
  const select = database.prepare(
    'SELECT last_message_id AS id FROM discord_channel_cursor WHERE channel_id = ?',
  );
  const insert = database.prepare(
    'INSERT OR IGNORE INTO discord_channel_cursor (channel_id, last_message_id, updated_at) VALUES (?, ?, ?)',
  );
  const update = database.prepare(
    'UPDATE discord_channel_cursor SET last_message_id = ?, updated_at = ? WHERE channel_id = ?',
  );
  const all = database.prepare(
    'SELECT channel_id AS channelId, last_message_id AS lastMessageId FROM discord_channel_cursor',
  );
  return {
    list: () => all.all() as unknown as ChannelCursorRow[],
    ensure(channelId, messageId) {
      insert.run(channelId, String(BigInt(messageId) - 1n), Date.now());
    },
    advance(channelId, messageId) {
      const row = select.get(channelId) as { id: string } | undefined;
      if (!row) {
        insert.run(channelId, messageId, Date.now());
        return;
      }
      if (BigInt(messageId) > BigInt(row.id)) update.run(messageId, Date.now(), channelId);
    },
  };
}
