import { AccessError, type AccessStore, type Identity, parseIdentityKey } from '@nexus/core';
import { type CommandOutput, formatTable } from './command-output.ts';

export const USERS_USAGE = `Usage:
  nexus users list                          People and their linked identities
  nexus users link IDENTITY TO              Make IDENTITY (e.g. telegram:123456789) the same person as TO
                                            (another identity, or a person id); memory then follows them
  nexus users unlink IDENTITY               Return IDENTITY to the person it started as; nothing is deleted
  nexus users forget PERSON                 Delete everything kept about PERSON (an identity or person id):
                                            memories, conversations, job payloads, Redis runs, link records
`;

/** `nexus users list|link|unlink`, on the access database the running gateway also uses. */
export function usersCommand(options: { args: string[]; store: AccessStore; output: CommandOutput }): number {
  const { store, output } = options;
  const [action, first, second, ...rest] = options.args;
  try {
    if (action === 'list' && first === undefined) {
      const people = store.identities.listPeople();
      if (people.length === 0) {
        output.out('Nobody has written to the assistant yet.\n');
        return 0;
      }
      const rows = people.flatMap((person) =>
        person.identities.map((identity, index) => [
          index === 0 ? person.userId : '',
          index === 0 ? (person.approved ? `yes (${person.approvedBy ?? 'owner'})` : 'no') : '',
          `${identity.channel}:${identity.platformId}`,
          identity.displayName ?? '',
          identity.homeUserId === person.userId ? '' : 'linked',
        ]),
      );
      output.out(formatTable(['PERSON', 'APPROVED FOR DMS', 'IDENTITY', 'NAME', ''], rows));
      return 0;
    }
    if (action === 'link' && first !== undefined && second !== undefined && rest.length === 0) {
      const identity = parseIdentityKey(first);
      const target = personOf(store, second);
      const linked = store.identities.link({ identity, toUserId: target });
      output.out(`Linked ${first} to person ${linked.userId}: it shares their memory from now on.\n`);
      return 0;
    }
    if (action === 'unlink' && first !== undefined && second === undefined) {
      const unlinked: Identity = store.identities.unlink(parseIdentityKey(first));
      output.out(
        `Unlinked ${first}: it is person ${unlinked.userId} again, with what was remembered for it before.\n`,
      );
      return 0;
    }
  } catch (error) {
    if (!(error instanceof AccessError)) throw error;
    output.error(`${error.message}\n`);
    return 1;
  }
  output.error(USERS_USAGE);
  return 64;
}

/** A known identity names its person; otherwise the text is taken as a person id. */
function personOf(store: AccessStore, text: string): string {
  const identity = store.identities.find(parseIdentityKey(text));
  return identity?.userId ?? text;
}
