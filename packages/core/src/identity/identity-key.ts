import { AccessError } from './access-error.ts';

/** A channel identity: who wrote, as the platform names them. */
export interface IdentityRef {
  channel: string;
  platformId: string;
}

/** `<channel>:<platformId>`, the user id adapters set before linking and the id of a new person. */
export function identityKey(identity: IdentityRef): string {
  return `${identity.channel}:${identity.platformId}`;
}

/** Parses `<channel>:<platformId>` (the platform id may itself contain colons). */
export function parseIdentityKey(key: string): IdentityRef {
  const at = key.indexOf(':');
  if (at <= 0 || at === key.length - 1) {
    throw new AccessError({
      reason: 'invalid_identity',
      message: `"${key}" is not an identity; write it as <channel>:<platform id>, e.g. telegram:123456789.`,
    });
  }
  return { channel: key.slice(0, at), platformId: key.slice(at + 1) };
}
