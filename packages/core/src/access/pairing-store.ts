import type { DatabaseSync } from 'node:sqlite';
import { inTransaction } from '../identity/access-database.ts';
import { AccessError } from '../identity/access-error.ts';
import type { IdentityRef } from '../identity/identity-key.ts';
import type { Identity, IdentityStore } from '../identity/identity-store.ts';
import { normaliseCode } from '../identity/random-code.ts';

export interface PairingRequest extends IdentityRef {
  code: string;
  displayName?: string;
  status: 'pending' | 'approved' | 'rejected';
  createdAt: number;
  expiresAt: number;
}

/** Unknown senders waiting for the owner's approval, each with a one-time code. */
export interface PairingStore {
  /** The sender's pending request that has not expired. */
  pendingFor(identity: IdentityRef): PairingRequest | undefined;
  /** When the owner last rejected this sender, if ever. */
  lastRejectedAt(identity: IdentityRef): number | undefined;
  countPending(options: { channel: string }): number;
  /** How many requests (any status) the sender was given since `since`. */
  countRequestsSince(options: IdentityRef & { since: number }): number;
  /** Ends the channel's oldest pending request now (its code stops working); returns it. */
  displaceOldest(options: { channel: string }): PairingRequest | undefined;
  create(options: IdentityRef & { code: string; displayName?: string; ttlMs: number }): PairingRequest;
  /** Pending requests that have not expired, oldest first. */
  list(): PairingRequest[];
  /** Approves the sender's person for direct messages; returns the sender's identity. */
  approve(options: { code: string }): { request: PairingRequest; identity: Identity };
  reject(options: { code: string }): PairingRequest;
}

interface PairingRow {
  code: string;
  channel: string;
  platform_id: string;
  display_name: string | null;
  status: PairingRequest['status'];
  created_at: number;
  expires_at: number;
}

/** Requests decided or expired longer ago than this are deleted. */
const KEEP_DECIDED_MS = 30 * 24 * 60 * 60_000;

export function createPairingStore(
  database: DatabaseSync,
  identities: IdentityStore,
  now: () => number,
): PairingStore {
  const pendingStatement = database.prepare(
    `SELECT * FROM pairing_requests WHERE channel = ? AND platform_id = ? AND status = 'pending' AND expires_at > ?
     ORDER BY created_at DESC LIMIT 1`,
  );
  const rejectedStatement = database.prepare(
    `SELECT MAX(decided_at) AS at FROM pairing_requests WHERE channel = ? AND platform_id = ? AND status = 'rejected'`,
  );
  const countStatement = database.prepare(
    `SELECT COUNT(*) AS count FROM pairing_requests WHERE status = 'pending' AND channel = ? AND expires_at > ?`,
  );
  const senderCountStatement = database.prepare(
    'SELECT COUNT(*) AS count FROM pairing_requests WHERE channel = ? AND platform_id = ? AND created_at > ?',
  );
  const oldestStatement = database.prepare(
    `SELECT * FROM pairing_requests WHERE status = 'pending' AND channel = ? AND expires_at > ?
     ORDER BY created_at, code LIMIT 1`,
  );
  const expireStatement = database.prepare('UPDATE pairing_requests SET expires_at = ? WHERE code = ?');
  const insertStatement = database.prepare(
    `INSERT INTO pairing_requests (code, channel, platform_id, display_name, status, created_at, expires_at)
     VALUES (?, ?, ?, ?, 'pending', ?, ?)`,
  );
  const listStatement = database.prepare(
    `SELECT * FROM pairing_requests WHERE status = 'pending' AND expires_at > ? ORDER BY created_at, code`,
  );
  const byCodeStatement = database.prepare('SELECT * FROM pairing_requests WHERE code = ?');
  const decideStatement = database.prepare(
    'UPDATE pairing_requests SET status = ?, decided_at = ? WHERE code = ?',
  );
  const pruneStatement = database.prepare(
    `DELETE FROM pairing_requests WHERE expires_at < ? AND (status <> 'rejected' OR decided_at < ?)`,
  );

  const pendingByCode = (code: string): PairingRow => {
    const row = byCodeStatement.get(normaliseCode(code)) as PairingRow | undefined;
    if (row?.status !== 'pending') {
      throw new AccessError({
        reason: 'unknown_code',
        message: `No pending pairing request has the code ${normaliseCode(code) || '(empty)'}; \`nexus pairing list\` shows the pending ones.`,
      });
    }
    if (row.expires_at <= now()) {
      throw new AccessError({
        reason: 'expired_code',
        message: `The pairing code ${row.code} expired; ask the sender to write again for a new one.`,
      });
    }
    return row;
  };

  return {
    pendingFor(identity) {
      const row = pendingStatement.get(identity.channel, identity.platformId, now()) as
        | PairingRow
        | undefined;
      return row ? toRequest(row) : undefined;
    },
    lastRejectedAt(identity) {
      const row = rejectedStatement.get(identity.channel, identity.platformId) as { at: number | null };
      return row.at ?? undefined;
    },
    countPending({ channel }) {
      return (countStatement.get(channel, now()) as { count: number }).count;
    },
    countRequestsSince({ channel, platformId, since }) {
      return (senderCountStatement.get(channel, platformId, since) as { count: number }).count;
    },
    displaceOldest({ channel }) {
      const at = now();
      const row = oldestStatement.get(channel, at) as PairingRow | undefined;
      if (!row) return undefined;
      expireStatement.run(at, row.code);
      return toRequest({ ...row, expires_at: at });
    },
    create(options) {
      const createdAt = now();
      pruneStatement.run(createdAt - KEEP_DECIDED_MS, createdAt - KEEP_DECIDED_MS);
      insertStatement.run(
        options.code,
        options.channel,
        options.platformId,
        options.displayName ?? null,
        createdAt,
        createdAt + options.ttlMs,
      );
      return toRequest(byCodeStatement.get(options.code) as unknown as PairingRow);
    },
    list() {
      return (listStatement.all(now()) as unknown as PairingRow[]).map(toRequest);
    },
    approve({ code }) {
      return inTransaction(database, () => {
        const row = pendingByCode(code);
        const sender = { channel: row.channel, platformId: row.platform_id };
        const identity = identities.ensure({
          ...sender,
          ...(row.display_name === null ? {} : { displayName: row.display_name }),
        });
        identities.approve({ userId: identity.userId, approvedBy: 'pairing' });
        decideStatement.run('approved', now(), row.code);
        return {
          request: { ...toRequest(row), status: 'approved' as const },
          identity: identities.find(sender) ?? identity,
        };
      });
    },
    reject({ code }) {
      return inTransaction(database, () => {
        const row = pendingByCode(code);
        decideStatement.run('rejected', now(), row.code);
        return { ...toRequest(row), status: 'rejected' as const };
      });
    },
  };
}

function toRequest(row: PairingRow): PairingRequest {
  return {
    code: row.code,
    channel: row.channel,
    platformId: row.platform_id,
    status: row.status,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    ...(row.display_name === null ? {} : { displayName: row.display_name }),
  };
}
