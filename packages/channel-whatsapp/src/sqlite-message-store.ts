import type { DatabaseSync } from 'node:sqlite';
import { proto, type WAMessage, type WAMessageKey } from '@whiskeysockets/baileys';

export interface MessageStore {
  /** Keeps a sent or received message so retries and quotes can find it later. */
  put(message: WAMessage): void;
  /** The full message (key, timestamp, content) or undefined when unknown or expired. */
  find(options: { remoteJid?: string | null; id: string }): WAMessage | undefined;
  /** Baileys' `getMessage`: the content to re-encrypt when a recipient asks for a retry. */
  getMessage(key: WAMessageKey): Promise<proto.IMessage | undefined>;
}

const DEFAULT_RETENTION_MS = 3 * 24 * 60 * 60 * 1000;
const PRUNE_EVERY_PUTS = 200;

/**
 * Recent messages in SQLite. Without them Baileys cannot answer retry receipts and the
 * recipient sees "Waiting for this message…"; rows older than `retentionMs` are pruned.
 */
export function createSqliteMessageStore(options: {
  database: DatabaseSync;
  now?: () => number;
  retentionMs?: number;
}): MessageStore {
  const { database } = options;
  const now = options.now ?? Date.now;
  const retentionMs = options.retentionMs ?? DEFAULT_RETENTION_MS;
  const insert = database.prepare(
    `INSERT INTO wa_messages (remote_jid, id, from_me, data, stored_at) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (remote_jid, id) DO UPDATE SET data = excluded.data, stored_at = excluded.stored_at`,
  );
  const selectByChat = database.prepare('SELECT data FROM wa_messages WHERE remote_jid = ? AND id = ?');
  const selectById = database.prepare(
    'SELECT data FROM wa_messages WHERE id = ? ORDER BY stored_at DESC LIMIT 1',
  );
  const prune = database.prepare('DELETE FROM wa_messages WHERE stored_at < ?');
  let putsSincePrune = 0;

  function find(options: { remoteJid?: string | null; id: string }): WAMessage | undefined {
    const row = (
      options.remoteJid ? selectByChat.get(options.remoteJid, options.id) : selectById.get(options.id)
    ) as { data: Uint8Array } | undefined;
    // A chat may be addressed by phone number or by LID; the id alone is unique enough.
    const fallback = row ?? (selectById.get(options.id) as { data: Uint8Array } | undefined);
    if (!fallback) return undefined;
    return proto.WebMessageInfo.decode(fallback.data) as WAMessage;
  }

  return {
    put(message) {
      const { remoteJid, id } = message.key;
      if (!remoteJid || !id || !message.message) return;
      const data = proto.WebMessageInfo.encode(message).finish();
      insert.run(remoteJid, id, message.key.fromMe ? 1 : 0, data, now());
      putsSincePrune += 1;
      if (putsSincePrune >= PRUNE_EVERY_PUTS) {
        putsSincePrune = 0;
        prune.run(now() - retentionMs);
      }
    },
    find,
    async getMessage(key) {
      if (!key.id) return undefined;
      return find({ remoteJid: key.remoteJid ?? null, id: key.id })?.message ?? undefined;
    },
  };
}
