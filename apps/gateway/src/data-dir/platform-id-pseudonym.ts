import { createHmac, createSecretKey, type KeyObject, randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { privateFilePath } from './private-path.ts';

/** File in the data directory holding the key; losing it only changes the pseudonyms from then on. */
export const PSEUDONYM_KEY_FILE = 'pseudonym.key';

/** Log fields that carry a platform id or a person (phone numbers on WhatsApp, chat and user ids elsewhere). */
export const PLATFORM_ID_FIELDS = [
  'userId',
  'sender',
  'senderKey',
  'platformId',
  'intentId',
  'conversationId',
  'chatId',
  'channelId',
  'sessionId',
  'remoteJid',
  'jid',
  'phoneNumber',
] as const;

/**
 * The key as a KeyObject, made once: `createHmac` with a Buffer key first tests whether it is a
 * KeyObject or a CryptoKey by brand checks that throw and catch for a Buffer, which made each
 * pseudonym ~20 µs instead of ~2.5 µs; a turn makes several (pino's child loggers redact their
 * bindings when created, whatever the level).
 */
const keys = new Map<string, KeyObject>();

/**
 * The one function that turns a platform id (a WhatsApp number, a Telegram chat id, an intent id
 * built from them) into what spans and logs carry: `id:` + 16 hex digits of HMAC-SHA256 under a
 * key kept in the data directory (`pseudonym.key`, 0600, made on first use). The same id gives
 * the same pseudonym for as long as the key lives, so lines and spans of one person still go
 * together; without the key nobody can test a guessed phone number against them (a plain hash
 * of a number can be reversed by trying every number).
 */
export function platformIdPseudonymiser(dataDir: string): (value: unknown) => string {
  const recent = new Map<string, string>();
  return (value) => {
    const id = String(value);
    const known = recent.get(id);
    if (known !== undefined) return known;
    const pseudonym = `id:${createHmac('sha256', keyOf(dataDir)).update(id).digest('hex').slice(0, 16)}`;
    if (recent.size >= RECENT_PSEUDONYMS) recent.delete(recent.keys().next().value as string);
    recent.set(id, pseudonym);
    return pseudonym;
  };
}

/**
 * Pseudonyms kept per pseudonymiser, oldest dropped first: a turn's log lines and spans name the
 * same few ids (its person, conversation, intent) several times each, and an HMAC is ~2.5 µs
 * where a map lookup is ~0.05. The ids are in the process's memory anyway.
 */
const RECENT_PSEUDONYMS = 2_048;

function keyOf(dataDir: string): KeyObject {
  const known = keys.get(dataDir);
  if (known) return known;
  const path = privateFilePath(join(dataDir, PSEUDONYM_KEY_FILE));
  let bytes = Buffer.from(readFileSync(path, 'utf8').trim(), 'hex');
  if (bytes.length < 32) {
    // Made by privateFilePath just now (empty, 0600), or damaged: a fresh key.
    bytes = randomBytes(32);
    writeFileSync(path, `${bytes.toString('hex')}\n`, { mode: 0o600 });
  }
  const key = createSecretKey(bytes);
  keys.set(dataDir, key);
  return key;
}
