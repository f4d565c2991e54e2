/**
 * Ids qualified by their channel, wherever they sit in a string: `telegram:7770001234`,
 * `whatsapp:15557654321@s.whatsapp.net`, `discord:1100…`, a web person `web:<client>`, a Discord
 * interaction, and whatever is built from them (`telegram:-100123:42` intent ids, job ids).
 */
const QUALIFIED_ID =
  /(?<![\p{L}\p{N}_])(?:telegram|discord|whatsapp|web|interaction)(?::[^\s"'`<>()[\]{},;]+)+/giu;

/** A WhatsApp JID (phone number, LID or group), with the `/<message id>` of an intent id. */
const WHATSAPP_JID =
  /[\p{N}][\p{N}.:+-]*@(?:s\.whatsapp\.net|c\.us|g\.us|lid|broadcast|newsletter|bot)\b(?:\/[^\s"'`<>(),;]*)?/gu;

/** Either, in one pass, so an id is masked once (a qualified id may hold a JID). */
const ANY_ID = new RegExp(`${QUALIFIED_ID.source}|${WHATSAPP_JID.source}`, 'giu');

/**
 * A value that is an unqualified platform id on its own: a Telegram chat or user id, a Discord
 * snowflake, a phone number, or an id made of one (`7770001234:15`, a Telegram intent id).
 * Only whole values: a number inside a sentence is more often a size or a time.
 */
const BARE_ID = /^-?\p{N}{6,}(?:[:/_-][\p{L}\p{N}._-]+)*$/u;

/** A pseudonym already (`platformIdPseudonymiser`): kept, so one id reads the same everywhere. */
const PSEUDONYM = /^id:[0-9a-f]{16}$/u;

/**
 * The one place platform ids are masked on their way to a log, by value rather than by field
 * name: every string in a log line — its fields at any depth, its child bindings, its message,
 * its error's message and stack — has the ids it contains replaced by `pseudonymise(id)`.
 * A field named in `idFields` (PLATFORM_ID_FIELDS) is pseudonymised whole, whatever it holds:
 * that is how numeric ids are caught, since a bare number is more often a count, a size or a time.
 */
export function platformIdMasker(
  pseudonymise: (value: unknown) => string,
  idFields: ReadonlySet<string> = new Set(),
): {
  /** A copy of `value` with every platform id in its strings masked. */
  mask(value: unknown): unknown;
  /** `text` with the qualified ids and JIDs in it masked (for a log line's message). */
  maskText(text: string): string;
} {
  const maskText = (text: string): string => text.replace(ANY_ID, (id) => pseudonymise(id));
  const maskString = (text: string): string => (BARE_ID.test(text) ? pseudonymise(text) : maskText(text));
  const mask = (value: unknown, depth = 0): unknown => {
    if (typeof value === 'string') return PSEUDONYM.test(value) ? value : maskString(value);
    if (depth > 8 || value === null || typeof value !== 'object') return value;
    if (Array.isArray(value)) return value.map((item) => mask(item, depth + 1));
    // Errors go through the `err` serializer (masked there); dates, buffers and class instances
    // keep their own JSON form.
    const prototype = Object.getPrototypeOf(value);
    if (prototype !== Object.prototype && prototype !== null) return value;
    const masked: Record<string, unknown> = {};
    for (const [key, field] of Object.entries(value)) {
      masked[key] =
        idFields.has(key) && (typeof field === 'number' || typeof field === 'bigint')
          ? pseudonymise(field)
          : idFields.has(key) && typeof field === 'string' && !PSEUDONYM.test(field)
            ? pseudonymise(field)
            : mask(field, depth + 1);
    }
    return masked;
  };
  return { mask: (value) => mask(value), maskText };
}
