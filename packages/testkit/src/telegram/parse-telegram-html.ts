/** Tags the Bot API accepts with `parse_mode: 'HTML'` (https://core.telegram.org/bots/api#html-style). */
const SUPPORTED_TAGS = new Set([
  'b',
  'strong',
  'i',
  'em',
  'u',
  'ins',
  's',
  'strike',
  'del',
  'span',
  'tg-spoiler',
  'a',
  'tg-emoji',
  'code',
  'pre',
  'blockquote',
]);

const NAMED_ENTITIES: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"' };

export interface ParsedTelegramHtml {
  /** The text a person sees, which is what Telegram's 4096-character limit counts. */
  text: string;
  /** Tag names in opening order, e.g. to check that code blocks arrived as `pre`. */
  tags: string[];
}

export type ParseTelegramHtmlResult =
  | { ok: true; value: ParsedTelegramHtml }
  | { ok: false; description: string };

/**
 * Parses a message the way the Bot API does before sending it: only supported tags, every tag
 * closed in order, `<`, `>` and `&` escaped outside tags. A failure carries Telegram's wording
 * ("Bad Request: can't parse entities: …"), so adapters can recognise it.
 */
export function parseTelegramHtml(html: string): ParseTelegramHtmlResult {
  const open: string[] = [];
  const tags: string[] = [];
  let text = '';
  let index = 0;
  const fail = (reason: string): ParseTelegramHtmlResult => ({
    ok: false,
    description: `Bad Request: can't parse entities: ${reason} at byte offset ${Buffer.byteLength(html.slice(0, index))}`,
  });
  while (index < html.length) {
    const character = html[index]!;
    if (character === '<') {
      const end = html.indexOf('>', index);
      if (end === -1) return fail('Unclosed start tag');
      const inner = html.slice(index + 1, end);
      const closing = inner.startsWith('/');
      const name = (closing ? inner.slice(1) : inner).trim().split(/[\s=]/, 1)[0]!.toLowerCase();
      if (!/^[a-z][a-z-]*$/.test(name)) return fail(`Unsupported start tag "${name}"`);
      if (!SUPPORTED_TAGS.has(name)) return fail(`Unsupported start tag "${name}"`);
      if (closing) {
        if (open.at(-1) !== name) return fail(`Unmatched end tag "${name}"`);
        open.pop();
      } else {
        open.push(name);
        tags.push(name);
      }
      index = end + 1;
      continue;
    }
    if (character === '>') return fail('Character ">" is reserved');
    if (character === '&') {
      const end = html.indexOf(';', index);
      const entity = end === -1 ? '' : html.slice(index + 1, end);
      const decoded = decodeEntity(entity);
      if (decoded === undefined) return fail('Character "&" is reserved');
      text += decoded;
      index = end + 1;
      continue;
    }
    text += character;
    index++;
  }
  if (open.length > 0) return fail(`Can't find end tag corresponding to start tag "${open.at(-1)}"`);
  return { ok: true, value: { text, tags } };
}

function decodeEntity(entity: string): string | undefined {
  if (entity in NAMED_ENTITIES) return NAMED_ENTITIES[entity];
  const numeric = /^#(x[0-9a-f]{1,6}|[0-9]{1,7})$/i.exec(entity);
  if (!numeric) return undefined;
  const body = numeric[1]!;
  const codePoint =
    body.startsWith('x') || body.startsWith('X') ? Number.parseInt(body.slice(1), 16) : Number(body);
  return codePoint <= 0x10ffff ? String.fromCodePoint(codePoint) : undefined;
}
