import type { DatabaseSync } from 'node:sqlite';
import { CommittedCache } from '@nexus/sqlite-kit';

/**
 * Which generation each conversation is in. `/new` moves a conversation to the next generation,
 * and history is read and written per generation, so earlier turns stop reaching the prompt.
 */
export interface ConversationGenerations {
  generation(conversationKey: string): number;
  /** Starts a new generation; returns it. */
  startNew(conversationKey: string): number;
  /** Records that a direct conversation belongs to a person, so `/forget-me` can restart all of them. */
  rememberOwner(options: { conversationKey: string; userId: string }): void;
  /** Starts a new generation in every direct conversation of the person; returns how many. */
  startNewForPerson(userId: string): number;
}

export function createConversationGenerations(
  database: DatabaseSync,
  now: () => number,
): ConversationGenerations {
  const get = database.prepare('SELECT generation FROM conversations WHERE conversation_key = ?');
  const bump = database.prepare(
    `INSERT INTO conversations (conversation_key, generation, updated_at) VALUES (?, 1, ?)
     ON CONFLICT (conversation_key) DO UPDATE SET generation = generation + 1, updated_at = excluded.updated_at
     RETURNING generation`,
  );
  const own = database.prepare(
    `INSERT INTO conversations (conversation_key, generation, person_id, updated_at) VALUES (?, 0, ?, ?)
     ON CONFLICT (conversation_key) DO UPDATE SET person_id = excluded.person_id
     WHERE person_id IS NOT excluded.person_id`,
  );
  const bumpPerson = database.prepare(
    'UPDATE conversations SET generation = generation + 1, updated_at = ? WHERE person_id = ?',
  );
  // Owners already written, so a busy conversation costs one write, not one per message.
  const known = new Map<string, string>();
  // Generations read lately: a turn asks twice (history, stored turn), and they change only here
  // or through another connection (`nexus users forget`), whose commit empties the copy.
  const generations = new CommittedCache<number>(database);

  return {
    generation(conversationKey) {
      return generations.get(
        conversationKey,
        () => (get.get(conversationKey) as { generation: number } | undefined)?.generation ?? 0,
      );
    },
    startNew(conversationKey) {
      return generations.set(
        conversationKey,
        (bump.get(conversationKey, now()) as { generation: number }).generation,
      );
    },
    rememberOwner({ conversationKey, userId }) {
      if (known.get(conversationKey) === userId) return;
      own.run(conversationKey, userId, now());
      if (known.size >= 10_000) known.clear();
      known.set(conversationKey, userId);
    },
    startNewForPerson(userId) {
      const changed = Number(bumpPerson.run(now(), userId).changes);
      // Which conversations were the person's is in the file, not here: read them afresh.
      if (changed > 0) generations.clear();
      return changed;
    },
  };
}
