import type { DatabaseSync } from 'node:sqlite';
import { inTransaction } from './access-database.ts';
import { AccessError } from './access-error.ts';
import { identityCacheOf } from './identity-cache.ts';
import { type IdentityRef, identityKey } from './identity-key.ts';

/** One channel account of a person. */
export interface Identity extends IdentityRef {
  /** The person this identity speaks as now; memory and rate limits follow it. */
  userId: string;
  /** The person this identity started as (`<channel>:<platformId>`); unlinking returns it there. */
  homeUserId: string;
  displayName?: string;
  createdAt: number;
  /** Whether the person may send direct messages on channels with the `pairing` policy. */
  approved: boolean;
}

export interface Person {
  userId: string;
  displayName?: string;
  approved: boolean;
  /** `pairing` (owner approved a code) or `owner` (CLI link or approval). */
  approvedBy?: string;
  createdAt: number;
  identities: Identity[];
}

/**
 * People and their linked channel identities. A person's id is the key of the identity that
 * created it, so memories stored before any linking keep belonging to the same id.
 */
export interface IdentityStore {
  find(identity: IdentityRef): Identity | undefined;
  /** The identity, created (with a new person) on first sight. */
  ensure(options: IdentityRef & { displayName?: string }): Identity;
  /** Allows the person direct messages; approving is per person, so every linked identity follows. */
  approve(options: { userId: string; approvedBy: string }): void;
  /**
   * Moves the identity, with every identity of its current person, into the person `toUserId`.
   * Nothing is deleted: the moved person's own data stays under its id and is theirs again on unlink.
   * An approved moving person makes the joined person approved.
   */
  link(options: { identity: IdentityRef; toUserId: string }): Identity;
  /** Returns the identity to the person it started as. */
  unlink(identity: IdentityRef): Identity;
  person(userId: string): Person | undefined;
  listPeople(): Person[];
}

interface IdentityRow {
  channel: string;
  platform_id: string;
  person_id: string;
  home_person_id: string;
  display_name: string | null;
  created_at: number;
  approved_at: number | null;
}

interface PersonRow {
  id: string;
  display_name: string | null;
  approved_at: number | null;
  approved_by: string | null;
  created_at: number;
}

const IDENTITY_COLUMNS = `i.channel, i.platform_id, i.person_id, i.home_person_id, i.display_name, i.created_at, p.approved_at
  FROM identities i JOIN people p ON p.id = i.person_id`;

export function createIdentityStore(database: DatabaseSync, now: () => number): IdentityStore {
  // `= +?`, not `= ?`: SQLite 3.54 compiles a join (or an ordered read) again on every run when a
  // bound value is compared to a column; `+?` is the same value (a bound value has no affinity
  // either way) and the same plan, compiled once.
  const findStatement = database.prepare(
    `SELECT ${IDENTITY_COLUMNS} WHERE i.channel = +? AND i.platform_id = +?`,
  );
  const ofPersonStatement = database.prepare(
    `SELECT ${IDENTITY_COLUMNS} WHERE i.person_id = +? ORDER BY i.created_at, i.channel, i.platform_id`,
  );
  const insertPerson = database.prepare(
    'INSERT OR IGNORE INTO people (id, display_name, created_at) VALUES (?, ?, ?)',
  );
  const insertIdentity = database.prepare(
    `INSERT OR IGNORE INTO identities (channel, platform_id, person_id, home_person_id, display_name, created_at)
     VALUES (?, ?, ?, ?, ?, ?)`,
  );
  const approveStatement = database.prepare(
    'UPDATE people SET approved_at = ?, approved_by = ? WHERE id = ? AND approved_at IS NULL',
  );
  const personStatement = database.prepare('SELECT * FROM people WHERE id = ?');
  const movePerson = database.prepare('UPDATE identities SET person_id = ? WHERE person_id = ?');
  const moveIdentity = database.prepare(
    'UPDATE identities SET person_id = ? WHERE channel = ? AND platform_id = ?',
  );
  const peopleStatement = database.prepare(
    'SELECT * FROM people WHERE id IN (SELECT person_id FROM identities) ORDER BY created_at, id',
  );

  const read = (identity: IdentityRef): Identity | undefined => {
    const row = findStatement.get(identity.channel, identity.platformId) as IdentityRow | undefined;
    return row ? Object.freeze(toIdentity(row)) : undefined;
  };
  // Identities read lately (every turn's access check looks its sender up), dropped as this
  // connection writes them (below, and in the person records) or another one commits. Inside a
  // transaction the file is read and nothing kept: a rollback would leave the copy wrong.
  const cache = identityCacheOf<Identity | undefined>(database);
  const find = (identity: IdentityRef): Identity | undefined =>
    database.isTransaction ? read(identity) : cache.get(identityKey(identity), () => read(identity));
  const require = (identity: IdentityRef): Identity => {
    const found = find(identity);
    if (!found) {
      throw new AccessError({
        reason: 'unknown_identity',
        message: `No identity ${identityKey(identity)} is known; it appears once that account has written to the assistant.`,
      });
    }
    return found;
  };
  const person = (userId: string): Person | undefined => {
    const row = personStatement.get(userId) as PersonRow | undefined;
    return row ? toPerson(row, ofPersonStatement.all(row.id) as unknown as IdentityRow[]) : undefined;
  };

  return {
    find,
    ensure(options) {
      const existing = find(options);
      if (existing) return existing;
      const key = identityKey(options);
      const createdAt = now();
      inTransaction(database, () => {
        insertPerson.run(key, options.displayName ?? null, createdAt);
        insertIdentity.run(
          options.channel,
          options.platformId,
          key,
          key,
          options.displayName ?? null,
          createdAt,
        );
      });
      cache.delete(key);
      return require(options);
    },
    approve({ userId, approvedBy }) {
      approveStatement.run(now(), approvedBy, userId);
      cache.clear();
    },
    link({ identity, toUserId }) {
      return inTransaction(database, () => {
        const moving = require(identity);
        const target = person(toUserId);
        if (!target || target.identities.length === 0) {
          throw new AccessError({
            reason: 'unknown_identity',
            message: `No person ${toUserId} is known; name one of its identities, e.g. telegram:123456789.`,
          });
        }
        if (moving.userId === toUserId) {
          throw new AccessError({
            reason: 'already_linked',
            message: `${identityKey(identity)} already belongs to ${toUserId}.`,
          });
        }
        movePerson.run(toUserId, moving.userId);
        cache.clear();
        // Whoever was approved stays approved: linking must never lock an approved account out.
        if (moving.approved) {
          const movingPerson = personStatement.get(moving.userId) as PersonRow | undefined;
          approveStatement.run(now(), movingPerson?.approved_by ?? 'link', toUserId);
        }
        return require(identity);
      });
    },
    unlink(identity) {
      return inTransaction(database, () => {
        const current = require(identity);
        if (current.userId === current.homeUserId) {
          const others = (ofPersonStatement.all(current.userId) as unknown as IdentityRow[])
            .filter((row) => row.channel !== identity.channel || row.platform_id !== identity.platformId)
            .map((row) => `${row.channel}:${row.platform_id}`);
          throw new AccessError({
            reason: 'not_linked',
            message:
              others.length === 0
                ? `${identityKey(identity)} is not linked to anyone.`
                : `${identityKey(identity)} is the identity ${current.userId} started from; unlink the others instead (${others.join(', ')}).`,
          });
        }
        insertPerson.run(current.homeUserId, current.displayName ?? null, now());
        moveIdentity.run(current.homeUserId, identity.channel, identity.platformId);
        cache.clear();
        return require(identity);
      });
    },
    person,
    listPeople() {
      const rows = peopleStatement.all() as unknown as PersonRow[];
      return rows.map((row) => toPerson(row, ofPersonStatement.all(row.id) as unknown as IdentityRow[]));
    },
  };
}

function toIdentity(row: IdentityRow): Identity {
  return {
    channel: row.channel,
    platformId: row.platform_id,
    userId: row.person_id,
    homeUserId: row.home_person_id,
    createdAt: row.created_at,
    approved: row.approved_at !== null,
    ...(row.display_name === null ? {} : { displayName: row.display_name }),
  };
}

function toPerson(row: PersonRow, identities: IdentityRow[]): Person {
  return {
    userId: row.id,
    approved: row.approved_at !== null,
    createdAt: row.created_at,
    identities: identities.map(toIdentity),
    ...(row.display_name === null ? {} : { displayName: row.display_name }),
    ...(row.approved_by === null ? {} : { approvedBy: row.approved_by }),
  };
}
