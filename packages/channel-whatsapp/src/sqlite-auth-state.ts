import type { DatabaseSync } from 'node:sqlite';
import {
  type AuthenticationCreds,
  type AuthenticationState,
  BufferJSON,
  initAuthCreds,
  makeCacheableSignalKeyStore,
  proto,
  type SignalDataSet,
  type SignalDataTypeMap,
  type SignalKeyStore,
} from '@whiskeysockets/baileys';
import type { BaileysLogger } from './baileys-logger.ts';
import { inTransaction } from './open-whatsapp-database.ts';

export interface SqliteAuthState {
  /** Pass to `makeWASocket({ auth })`; keys are cached in memory in front of SQLite. */
  state: AuthenticationState;
  /** Writes the current `state.creds`; call on every `creds.update`. Durable when it returns. */
  saveCreds(): void;
  /** Forgets the link (credentials and keys), e.g. after WhatsApp logged the device out. */
  clear(): Promise<void>;
}

function serialize(value: unknown): string {
  return JSON.stringify(value, BufferJSON.replacer);
}

function deserialize(json: string): unknown {
  return JSON.parse(json, BufferJSON.reviver);
}

/**
 * Baileys auth state in SQLite instead of `useMultiFileAuthState` (whose own docs warn against
 * production use): every `keys.set` is one transaction, so a crash leaves either the whole
 * batch or none of it, and creds are one row replaced atomically.
 */
export function createSqliteAuthState(options: {
  database: DatabaseSync;
  logger?: BaileysLogger;
}): SqliteAuthState {
  const { database } = options;
  const selectCreds = database.prepare('SELECT json FROM wa_creds WHERE id = 1');
  const upsertCreds = database.prepare(
    `INSERT INTO wa_creds (id, json, updated_at) VALUES (1, ?, ?)
     ON CONFLICT (id) DO UPDATE SET json = excluded.json, updated_at = excluded.updated_at`,
  );
  const selectKey = database.prepare('SELECT json FROM wa_keys WHERE type = ? AND id = ?');
  const upsertKey = database.prepare(
    `INSERT INTO wa_keys (type, id, json) VALUES (?, ?, ?)
     ON CONFLICT (type, id) DO UPDATE SET json = excluded.json`,
  );
  const deleteKey = database.prepare('DELETE FROM wa_keys WHERE type = ? AND id = ?');

  const row = selectCreds.get() as { json: string } | undefined;
  const creds = row ? (deserialize(row.json) as AuthenticationCreds) : initAuthCreds();

  const store: SignalKeyStore = {
    get<T extends keyof SignalDataTypeMap>(type: T, ids: string[]) {
      const result: { [id: string]: SignalDataTypeMap[T] } = {};
      for (const id of ids) {
        const found = selectKey.get(type, id) as { json: string } | undefined;
        if (!found) continue;
        let value = deserialize(found.json);
        if (type === 'app-state-sync-key') {
          value = proto.Message.AppStateSyncKeyData.fromObject(value as object);
        }
        result[id] = value as SignalDataTypeMap[T];
      }
      return result;
    },
    set(data: SignalDataSet) {
      inTransaction(database, () => {
        for (const [type, entries] of Object.entries(data)) {
          for (const [id, value] of Object.entries(entries ?? {})) {
            if (value === null || value === undefined) deleteKey.run(type, id);
            else upsertKey.run(type, id, serialize(value));
          }
        }
      });
    },
    clear() {
      inTransaction(database, () => {
        database.exec('DELETE FROM wa_keys');
      });
    },
  };

  const keys = makeCacheableSignalKeyStore(store, options.logger);

  return {
    state: { creds, keys },
    saveCreds() {
      upsertCreds.run(serialize(creds), Date.now());
    },
    async clear() {
      await keys.clear?.();
      inTransaction(database, () => {
        database.exec('DELETE FROM wa_creds');
        database.exec('DELETE FROM wa_keys');
      });
    },
  };
}
