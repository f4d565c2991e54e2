import { setTimeout } from 'node:timers/promises';
import { type Logger, NexusError } from '@nexus/protocol';
import type { AccessMemoryPort } from '../access/access-decision.ts';
import type { AccessStore } from '../access/access-store.ts';
import type { PersonEraser } from '../identity/person-erasers.ts';
import type { ForgetTarget } from '../identity/person-records.ts';
import { eraseSpeakerGroupMemories } from './erase-speaker-group-memories.ts';

export interface ForgetReport {
  /** Per kind, in the order erased: memories first, access records last. */
  removed: Array<{ kind: string; count: number }>;
}

/** What `nexus users forget` and `/forget-me` need to reach everything Nexus keeps. */
export interface ForgetPersonOptions {
  store: AccessStore;
  memory?: AccessMemoryPort;
  erasers: readonly PersonEraser[];
  userId: string;
  abortSignal?: AbortSignal;
  logger?: Logger;
  /**
   * When jobs of the person were running, how long to wait before resetting their memory a second
   * time, so an extraction that was mid-way does not leave a memory behind. Default 5 s.
   */
  settleMs?: number;
}

/**
 * Forgets a person everywhere: each eraser (turns, job payloads, agent-run data) first, so no
 * queued extraction writes a memory back afterwards, then memories (every id the person was known
 * by, so linked accounts' own memories too, and the group memories tagged with them as speaker), then the access records. Access records go last, and only when everything else succeeded: they name the linked
 * accounts, and a retry after a failure must still find all of them.
 */
export async function forgetPerson(options: ForgetPersonOptions): Promise<ForgetReport> {
  const { store, userId } = options;
  const person = store.identities.person(userId);
  const identities = person?.identities.map(({ channel, platformId }) => ({ channel, platformId })) ?? [];
  const userIds = [
    ...new Set([userId, ...(person?.identities.map((identity) => identity.homeUserId) ?? [])]),
  ];
  const target: ForgetTarget = { userIds, identities };
  const removed: ForgetReport['removed'] = [];
  const failed: string[] = [];
  const abortSignal = options.abortSignal;
  let running = 0;

  for (const eraser of options.erasers) {
    try {
      const erased = await eraser.erase(target, signal(abortSignal));
      const items = typeof erased === 'number' ? { count: erased, running: 0 } : erased;
      running += items.running;
      removed.push({ kind: eraser.kind, count: items.count });
    } catch (error) {
      options.logger?.warn({ err: error, userId, kind: eraser.kind }, 'forget: eraser failed');
      failed.push(eraser.kind);
    }
  }
  if (options.memory) {
    const memory = options.memory;
    const groups = store.groupSpeakers.groupsOf(userIds);
    const reset = async () => {
      let count = 0;
      for (const id of userIds) count += (await memory.reset({ userId: id, ...signal(abortSignal) })).deleted;
      // Group memories tagged with them: what they said in a group is theirs to take back too.
      count += await eraseSpeakerGroupMemories({ memory, groups, speakers: userIds, ...signal(abortSignal) });
      return count;
    };
    try {
      let count = await reset();
      if (running > 0) {
        await setTimeout(options.settleMs ?? 5_000, undefined, abortSignal ? { signal: abortSignal } : {});
        count += await reset();
      }
      removed.unshift({ kind: 'memories', count });
    } catch (error) {
      options.logger?.warn({ err: error, userId }, 'forget: memory could not be reset');
      failed.push('memories');
    }
  }
  for (const id of userIds) store.conversations.startNewForPerson(id);
  if (failed.length > 0) {
    throw new NexusError({
      code: 'memory_unavailable',
      retryable: true,
      message: `I could not delete your ${failed.join(', ')} just now (everything else is gone). Please send /forget-me again in a moment.`,
    });
  }
  const accountRecords = store.personRecords.forget(target) + store.groupSpeakers.forget(userIds);
  removed.push({ kind: 'account records', count: accountRecords });
  options.logger?.info({ userId, removed }, 'person forgotten');
  return { removed };
}

function signal(abortSignal: AbortSignal | undefined): { abortSignal?: AbortSignal } {
  return abortSignal ? { abortSignal } : {};
}
