import type { DatabaseSync } from 'node:sqlite';
import { checkpointAndTruncate, inTransaction } from './access-database.ts';
import { identityCacheOf } from './identity-cache.ts';
import { type IdentityRef, identityKey } from './identity-key.ts';

/** Who `/forget-me` is about: the person's ids (their own and each linked account's) and accounts. */
export interface ForgetTarget {
  userIds: readonly string[];
  identities: readonly IdentityRef[];
}

/**
 * What the access database keeps about a person beyond the bare account ids: pairing requests,
 * link codes, wrong-code counters, display names and the links between their accounts.
 */
export interface PersonRecords {
  /**
   * Deletes the pairing requests, link codes and code counters of the target, forgets display
   * names and undoes the links (each account becomes its own person again). Approval is kept per
   * account, so forgetting does not lock the person out. Returns how many records changed.
   */
  forget(target: ForgetTarget): number;
}

export function createPersonRecords(database: DatabaseSync, now: () => number): PersonRecords {
  const statements = {
    pairing: database.prepare('DELETE FROM pairing_requests WHERE channel = ? AND platform_id = ?'),
    codesOfPerson: database.prepare('DELETE FROM link_codes WHERE person_id = ?'),
    codesOfIdentity: database.prepare(
      `DELETE FROM link_codes WHERE (issued_channel = ? AND issued_platform_id = ?)
         OR (claimed_channel = ? AND claimed_platform_id = ?)`,
    ),
    attempts: database.prepare('DELETE FROM code_attempts WHERE subject = ?'),
    identity: database.prepare(
      'SELECT person_id, home_person_id FROM identities WHERE channel = ? AND platform_id = ?',
    ),
    approvedAt: database.prepare('SELECT approved_at FROM people WHERE id = ?'),
    homePerson: database.prepare(
      `INSERT INTO people (id, created_at, approved_at, approved_by) VALUES (?, ?, ?, ?)
       ON CONFLICT (id) DO UPDATE SET approved_at = COALESCE(approved_at, ?),
         approved_by = COALESCE(approved_by, ?)`,
    ),
    unlink: database.prepare(
      'UPDATE identities SET person_id = home_person_id, display_name = NULL WHERE channel = ? AND platform_id = ?',
    ),
    personName: database.prepare('UPDATE people SET display_name = NULL WHERE id = ?'),
  };

  return {
    forget(target) {
      const changed = inTransaction(database, () => {
        let count = 0;
        for (const userId of target.userIds) count += Number(statements.codesOfPerson.run(userId).changes);
        for (const identity of target.identities) {
          const { channel, platformId } = identity;
          count += Number(statements.pairing.run(channel, platformId).changes);
          count += Number(statements.codesOfIdentity.run(channel, platformId, channel, platformId).changes);
          count += Number(statements.attempts.run(identityKey(identity)).changes);
          const row = statements.identity.get(channel, platformId) as
            | { person_id: string; home_person_id: string }
            | undefined;
          if (!row) continue;
          if (row.person_id !== row.home_person_id) {
            const approved = statements.approvedAt.get(row.person_id) as { approved_at: number | null };
            const approvedBy = approved.approved_at === null ? null : 'owner';
            statements.homePerson.run(
              row.home_person_id,
              now(),
              approved.approved_at,
              approvedBy,
              approved.approved_at,
              approvedBy,
            );
            count += 1;
          }
          statements.unlink.run(channel, platformId);
        }
        for (const userId of target.userIds) statements.personName.run(userId);
        return count;
      });
      // Links and display names changed under the identity store's copy.
      identityCacheOf(database).clear();
      checkpointAndTruncate(database);
      return changed;
    },
  };
}
