import type { DatabaseSync } from 'node:sqlite';
import type { ConversationRef } from '@nexus/protocol';
import type { IdentityRef } from './identity-key.ts';
import { normaliseCode } from './random-code.ts';

export interface LinkCode {
  code: string;
  /** The person the code links to (the one who asked for it). */
  userId: string;
  issuedBy: IdentityRef;
  createdAt: number;
  expiresAt: number;
  /** The direct conversation `/link` was sent in: the approval request goes there. */
  issuedIn?: ConversationRef;
  claimedBy?: IdentityRef;
  claimedIn?: ConversationRef;
  claimedDisplayName?: string;
  /** When the account that entered the code confirmed it, having been told whose account it joins. */
  claimerConfirmedAt?: number;
}

/**
 * One-time link codes. A person asks for one on account A (`/link`), sends it from account B
 * (`/link CODE`, which claims it for B and tells B whose account it joins), confirms on B
 * (`/link confirm`), and approves on A (`/link approve`), where they are told who entered it:
 * neither side alone can complete a link.
 */
export interface LinkCodeStore {
  /** A new code for the person; their earlier unclaimed codes stop working. */
  issue(options: {
    userId: string;
    issuedBy: IdentityRef;
    issuedIn: ConversationRef;
    code: string;
    ttlMs: number;
  }): LinkCode;
  /** An unclaimed, unexpired code. */
  findUnclaimed(code: string): LinkCode | undefined;
  /** Marks the code as claimed by `by`; the approval window starts now. */
  claim(options: {
    code: string;
    by: IdentityRef;
    in: ConversationRef;
    displayName?: string;
    ttlMs: number;
  }): LinkCode | undefined;
  /** The unexpired code this identity claimed last. */
  claimedBy(identity: IdentityRef): LinkCode | undefined;
  /** The claimer's `/link confirm`: only now may the issuer be asked; the approval window restarts. */
  confirmClaim(options: { code: string; ttlMs: number }): LinkCode | undefined;
  /**
   * The unexpired code this identity issued last that its claimer has confirmed: what `/link approve`
   * there approves.
   */
  awaitingApproval(issuer: IdentityRef): LinkCode | undefined;
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
  issued_conversation: string | null;
  claimed_conversation: string | null;
  claimed_display_name: string | null;
  claimer_confirmed_at: number | null;
}

export function createLinkCodeStore(database: DatabaseSync, now: () => number): LinkCodeStore {
  const dropUnclaimed = database.prepare(
    'DELETE FROM link_codes WHERE (person_id = ? AND claimed_at IS NULL) OR expires_at < ?',
  );
  const insert = database.prepare(
    `INSERT INTO link_codes (code, person_id, issued_channel, issued_platform_id, issued_conversation, created_at, expires_at)
     VALUES (?, ?, ?, ?, ?, ?, ?)`,
  );
  const unclaimed = database.prepare(
    'SELECT * FROM link_codes WHERE code = ? AND claimed_at IS NULL AND expires_at > ?',
  );
  const claim = database.prepare(
    `UPDATE link_codes SET claimed_channel = ?, claimed_platform_id = ?, claimed_conversation = ?,
       claimed_display_name = ?, claimed_at = ?, expires_at = ?
     WHERE code = ? AND claimed_at IS NULL AND expires_at > ?`,
  );
  const claimed = database.prepare(
    `SELECT * FROM link_codes WHERE claimed_channel = ? AND claimed_platform_id = ? AND expires_at > ?
     ORDER BY claimed_at DESC LIMIT 1`,
  );
  const awaiting = database.prepare(
    `SELECT * FROM link_codes WHERE issued_channel = ? AND issued_platform_id = ? AND claimed_at IS NOT NULL
       AND claimer_confirmed_at IS NOT NULL AND expires_at > ? ORDER BY claimed_at DESC LIMIT 1`,
  );
  const confirm = database.prepare(
    `UPDATE link_codes SET claimer_confirmed_at = ?, expires_at = ?
     WHERE code = ? AND claimed_at IS NOT NULL AND claimer_confirmed_at IS NULL AND expires_at > ?`,
  );
  const byCode = database.prepare('SELECT * FROM link_codes WHERE code = ?');
  const consume = database.prepare('DELETE FROM link_codes WHERE code = ?');

  return {
    issue({ userId, issuedBy, issuedIn, code, ttlMs }) {
      const createdAt = now();
      dropUnclaimed.run(userId, createdAt);
      insert.run(
        code,
        userId,
        issuedBy.channel,
        issuedBy.platformId,
        JSON.stringify(issuedIn),
        createdAt,
        createdAt + ttlMs,
      );
      return toLinkCode(byCode.get(code) as unknown as LinkCodeRow);
    },
    findUnclaimed(code) {
      const row = unclaimed.get(normaliseCode(code), now()) as LinkCodeRow | undefined;
      return row ? toLinkCode(row) : undefined;
    },
    claim({ code, by, in: conversation, displayName, ttlMs }) {
      const at = now();
      const normalised = normaliseCode(code);
      const result = claim.run(
        by.channel,
        by.platformId,
        JSON.stringify(conversation),
        displayName ?? null,
        at,
        at + ttlMs,
        normalised,
        at,
      );
      if (Number(result.changes) === 0) return undefined;
      return toLinkCode(byCode.get(normalised) as unknown as LinkCodeRow);
    },
    claimedBy(identity) {
      const row = claimed.get(identity.channel, identity.platformId, now()) as LinkCodeRow | undefined;
      return row ? toLinkCode(row) : undefined;
    },
    confirmClaim({ code, ttlMs }) {
      const at = now();
      const normalised = normaliseCode(code);
      if (Number(confirm.run(at, at + ttlMs, normalised, at).changes) === 0) return undefined;
      return toLinkCode(byCode.get(normalised) as unknown as LinkCodeRow);
    },
    awaitingApproval(issuer) {
      const row = awaiting.get(issuer.channel, issuer.platformId, now()) as LinkCodeRow | undefined;
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
    ...(row.issued_conversation ? { issuedIn: JSON.parse(row.issued_conversation) as ConversationRef } : {}),
    ...(row.claimed_conversation
      ? { claimedIn: JSON.parse(row.claimed_conversation) as ConversationRef }
      : {}),
    ...(row.claimed_display_name === null ? {} : { claimedDisplayName: row.claimed_display_name }),
    ...(row.claimer_confirmed_at === null ? {} : { claimerConfirmedAt: row.claimer_confirmed_at }),
  };
}
