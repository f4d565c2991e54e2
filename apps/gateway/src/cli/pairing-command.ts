import { AccessError, type AccessStore } from '@nexus/core';
import { type CommandOutput, formatTable, minutesFrom } from './command-output.ts';

export const PAIRING_USAGE = `Usage:
  nexus pairing list            Pending requests from people who wrote to the assistant
  nexus pairing approve CODE    Let that person send direct messages
  nexus pairing reject CODE     Refuse; they are ignored for 24 hours
`;

/** `nexus pairing list|approve|reject`, on the access database the running gateway also uses. */
export function pairingCommand(options: {
  args: string[];
  store: AccessStore;
  output: CommandOutput;
  now?: () => number;
}): number {
  const { store, output } = options;
  const now = options.now ?? Date.now;
  const [action, code, ...rest] = options.args;
  if (action === 'list' && code === undefined) {
    const requests = store.pairing.list();
    if (requests.length === 0) {
      output.out('No pending pairing requests.\n');
      return 0;
    }
    output.out(
      formatTable(
        ['CODE', 'CHANNEL', 'SENDER', 'NAME', 'EXPIRES IN'],
        requests.map((request) => [
          request.code,
          request.channel,
          request.platformId,
          request.displayName ?? '',
          minutesFrom(request.expiresAt - now()),
        ]),
      ),
    );
    output.out(
      `\nApprove one with \`nexus pairing approve CODE\`, or refuse it with \`nexus pairing reject CODE\`.\n`,
    );
    return 0;
  }
  if ((action === 'approve' || action === 'reject') && code !== undefined && rest.length === 0) {
    try {
      if (action === 'approve') {
        const { request, identity } = store.pairing.approve({ code });
        output.out(
          `Approved ${request.channel}:${request.platformId}${request.displayName ? ` (${request.displayName})` : ''}: they can message the assistant directly now, as person ${identity.userId}.\n`,
        );
      } else {
        const request = store.pairing.reject({ code });
        output.out(
          `Rejected ${request.channel}:${request.platformId}; their messages are ignored for 24 hours.\n`,
        );
      }
      return 0;
    } catch (error) {
      if (!(error instanceof AccessError)) throw error;
      output.error(`${error.message}\n`);
      return 1;
    }
  }
  output.error(PAIRING_USAGE);
  return 64;
}
