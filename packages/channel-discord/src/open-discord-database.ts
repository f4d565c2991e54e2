import type { DatabaseSync } from 'node:sqlite';
import { openSqliteDatabase } from '@nexus/sqlite-kit';
import { channelCursorSchema } from './discord-channel-cursor.ts';
import { takenMessagesSchema } from './taken-messages.ts';

/**
 * The adapter's own SQLite file (packages do not reach into core's stores): the per-channel
 * cursor and the record of taken messages. `:memory:` keeps both for this process only.
 */
export function openDiscordDatabase(path: string): DatabaseSync {
  return openSqliteDatabase({
    path,
    storeName: 'Discord channel cursor',
    // Migration 1 is CREATE … IF NOT EXISTS, so it also adopts files made before the kit.
    migrations: [channelCursorSchema, takenMessagesSchema],
    // Ids only, no one's words: rows dropped by the bounds need not be zeroed.
    secureDelete: false,
  });
}
