import type { DatabaseSync } from 'node:sqlite';

/**
 * Which groups each person spoke in, by the group's memory id. Group memories are tagged with
 * their speaker (`metadata.speaker`); `/forget-me` reads this to find the groups whose memory may
 * hold something of theirs, since a group allowlist may be a wildcard and cannot be enumerated.
 */
export interface GroupSpeakers {
  remember(options: { groupMemoryId: string; userId: string }): void;
  /** The group memory ids any of these people spoke in. */
  groupsOf(userIds: readonly string[]): string[];
  /** Drops the records of these people; returns how many went. */
  forget(userIds: readonly string[]): number;
}

export function createGroupSpeakers(database: DatabaseSync): GroupSpeakers {
  const insert = database.prepare(
    'INSERT OR IGNORE INTO group_speakers (person_id, group_memory_id) VALUES (?, ?)',
  );
  const ofPerson = database.prepare('SELECT group_memory_id FROM group_speakers WHERE person_id = ?');
  const drop = database.prepare('DELETE FROM group_speakers WHERE person_id = ?');
  // Pairs already written, so a busy group costs one write per speaker, not one per message.
  const known = new Set<string>();
  return {
    remember({ groupMemoryId, userId }) {
      const key = `${userId}\n${groupMemoryId}`;
      if (known.has(key)) return;
      insert.run(userId, groupMemoryId);
      if (known.size >= 10_000) known.clear();
      known.add(key);
    },
    groupsOf(userIds) {
      const groups = new Set<string>();
      for (const userId of userIds) {
        for (const row of ofPerson.all(userId) as Array<{ group_memory_id: string }>) {
          groups.add(row.group_memory_id);
        }
      }
      return [...groups];
    },
    forget(userIds) {
      let count = 0;
      for (const userId of userIds) count += Number(drop.run(userId).changes);
      known.clear();
      return count;
    },
  };
}
