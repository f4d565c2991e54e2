import type { DatabaseSync } from 'node:sqlite';
import { normaliseCode } from '../access/random-code.ts';
import type { IdentityRef } from './identity-key.ts';

export interface LinkCode {
  code: string;
  /** The person the code links to (the one who asked for it). */
  userId: string;
  issuedBy: IdentityRef;
  createdAt: number;
  expiresAt: number;
  claimedBy?: IdentityRef;
}

/**
 * One-time link codes. A person asks for one on channel A (`/link`), sends it from channel B
 * (`/link CODE`, which claims it for B) and confirms there (`/link confirm`).
 */
export interface LinkCodeStore {
  /** A new code for the person; their earlier unclaimed codes stop working. */
  issue(options: { userId: string; issuedBy: IdentityRef; code: string; ttlMs: number }): LinkCode;
  /** An unclaimed, unexpired code. */
  findUnclaimed(code: string): LinkCode | undefined;
  /** Marks the code as claimed by `by`; the confirmation window starts now. */
  claim(options: { code: string; by: IdentityRef; ttlMs: number }): LinkCode | undefined;
  /** The unexpired code this identity claimed last. */
  claimedBy(identity: IdentityRef): LinkCode | undefined;
  consume(options: { code: string }): void;
}

interface LinkCodeRow {
  code: string;
  person_id: string;
  issued_channel: string;
  issued_platform_id: string;
  created_at: number;
  expires_at: number;
  claimed_channel: string | null;
  claimed_platform_id: string | null;
}

export function createLinkCodeStore(database: DatabaseSync, now: () => number): LinkCodeStore {
  const dropUnclaimed = database.prepare(
    'DELETE FROM link_codes WHERE (person_id = ? AND claimed_at IS NULL) OR expires_at < ?',
  );
  const insert = database.prepare(
    `INSERT INTO link_codes (code, person_id, issued_channel, issued_platform_id, created_at, expires_at)
     VALUES (?, ?, ?, ?, ?, ?)`,
  );
  const unclaimed = database.prepare(
    'SELECT * FROM link_codes WHERE code = ? AND claimed_at IS NULL AND expires_at > ?',
  );
  const claim = database.prepare(
    `UPDATE link_codes SET claimed_channel = ?, claimed_platform_id = ?, claimed_at = ?, expires_at = ?
     WHERE code = ? AND claimed_at IS NULL AND expires_at > ?`,
  );
  const claimed = database.prepare(
    `SELECT * FROM link_codes WHERE claimed_channel = ? AND claimed_platform_id = ? AND expires_at > ?
     ORDER BY claimed_at DESC LIMIT 1`,
  );
  const byCode = database.prepare('SELECT * FROM link_codes WHERE code = ?');
  const consume = database.prepare('DELETE FROM link_codes WHERE code = ?');

  return {
    issue({ userId, issuedBy, code, ttlMs }) {
      const createdAt = now();
      dropUnclaimed.run(userId, createdAt);
      insert.run(code, userId, issuedBy.channel, issuedBy.platformId, createdAt, createdAt + ttlMs);
      return toLinkCode(byCode.get(code) as unknown as LinkCodeRow);
    },
    findUnclaimed(code) {
      const row = unclaimed.get(normaliseCode(code), now()) as LinkCodeRow | undefined;
      return row ? toLinkCode(row) : undefined;
    },
    claim({ code, by, ttlMs }) {
      const at = now();
      const normalised = normaliseCode(code);
      const result = claim.run(by.channel, by.platformId, at, at + ttlMs, normalised, at);
      if (Number(result.changes) === 0) return undefined;
      return toLinkCode(byCode.get(normalised) as unknown as LinkCodeRow);
    },
    claimedBy(identity) {
      const row = claimed.get(identity.channel, identity.platformId, now()) as LinkCodeRow | undefined;
      return row ? toLinkCode(row) : undefined;
    },
    consume({ code }) {
      consume.run(normaliseCode(code));
    },
  };
}

function toLinkCode(row: LinkCodeRow): LinkCode {
  return {
    code: row.code,
    userId: row.person_id,
    issuedBy: { channel: row.issued_channel, platformId: row.issued_platform_id },
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    ...(row.claimed_channel !== null && row.claimed_platform_id !== null
      ? { claimedBy: { channel: row.claimed_channel, platformId: row.claimed_platform_id } }
      : {}),
  };
}
