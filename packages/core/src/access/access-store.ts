import { openAccessDatabase } from '../identity/access-database.ts';
import { createIdentityStore, type IdentityStore } from '../identity/identity-store.ts';
import { createLinkCodeStore, type LinkCodeStore } from '../identity/link-code-store.ts';
import { createPersonRecords, type PersonRecords } from '../identity/person-records.ts';
import {
  type ConversationGenerations,
  createConversationGenerations,
} from '../session-store/conversation-generations.ts';
import { type CodeAttempts, createCodeAttempts } from './code-attempts.ts';
import { createGroupSpeakers, type GroupSpeakers } from './group-speakers.ts';
import { createPairingStore, type PairingStore } from './pairing-store.ts';

export interface AccessStoreOptions {
  /** A file path (the gateway uses `<dataDir>/access.sqlite`), or ':memory:'. */
  path: string;
  busyTimeoutMs?: number;
  now?: () => number;
}

/**
 * Everything access control keeps, in one SQLite file the gateway and the owner's CLI open at the
 * same time. Calls are short indexed statements; nothing is cached in memory that the CLI could
 * change, so an approval takes effect on the sender's next message.
 */
export interface AccessStore {
  identities: IdentityStore;
  pairing: PairingStore;
  linkCodes: LinkCodeStore;
  codeAttempts: CodeAttempts;
  conversations: ConversationGenerations;
  groupSpeakers: GroupSpeakers;
  /** For `/forget-me` and `nexus users forget`. */
  personRecords: PersonRecords;
  close(): void;
}

export function createAccessStore(options: AccessStoreOptions): AccessStore {
  const now = options.now ?? Date.now;
  const database = openAccessDatabase({
    path: options.path,
    ...(options.busyTimeoutMs === undefined ? {} : { busyTimeoutMs: options.busyTimeoutMs }),
  });
  const identities = createIdentityStore(database, now);
  let closed = false;
  return {
    identities,
    pairing: createPairingStore(database, identities, now),
    linkCodes: createLinkCodeStore(database, now),
    codeAttempts: createCodeAttempts(database, now),
    conversations: createConversationGenerations(database, now),
    groupSpeakers: createGroupSpeakers(database),
    personRecords: createPersonRecords(database, now),
    close() {
      if (closed) return;
      closed = true;
      database.close();
    },
  };
}
