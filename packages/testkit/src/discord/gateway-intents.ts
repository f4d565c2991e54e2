/**
 * Gateway intents as Discord's docs list them (Gateway → List of Intents). Bits 17–19, 22, 23 and
 * above 25 name no intent: IDENTIFY with them closes the connection with 4013 Invalid intent(s).
 */
const KNOWN_INTENT_BITS = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 20, 21, 24, 25];
const KNOWN_INTENTS = KNOWN_INTENT_BITS.reduce((mask, bit) => mask | (1 << bit), 0);

/** The privileged intents an application must enable in the Developer Portal (else 4014). */
export const PRIVILEGED_INTENTS = {
  guildMembers: 1 << 1,
  guildPresences: 1 << 8,
  messageContent: 1 << 15,
} as const;

export type PrivilegedIntent = keyof typeof PRIVILEGED_INTENTS;

/** The close code Discord answers an IDENTIFY's intents with, or undefined when it takes them. */
export function refuseIntents(
  intents: unknown,
  enabled: ReadonlySet<PrivilegedIntent>,
): { code: 4013 | 4014; reason: string } | undefined {
  if (
    typeof intents !== 'number' ||
    !Number.isInteger(intents) ||
    intents < 0 ||
    (intents & ~KNOWN_INTENTS) !== 0
  ) {
    return { code: 4013, reason: 'Invalid intent(s).' };
  }
  for (const [name, bit] of Object.entries(PRIVILEGED_INTENTS) as Array<[PrivilegedIntent, number]>) {
    if ((intents & bit) !== 0 && !enabled.has(name)) return { code: 4014, reason: 'Disallowed intent(s).' };
  }
  return undefined;
}
