/** Inline Markdown as the renderers need it; anything unmatched stays literal text. */
export type MarkdownInline =
  | { type: 'text'; value: string }
  | { type: 'code'; value: string }
  | { type: 'strong' | 'emphasis' | 'strike'; children: MarkdownInline[] }
  | { type: 'link'; url: string; children: MarkdownInline[] };

const PUNCTUATION = /[!-/:-@[-`{-~]/;
const WORD_CHARACTER = /[\p{L}\p{N}]/u;
const WHITESPACE = /\s/;
const AUTOLINK = /<((?:https?|mailto):[^\s<>]+)>/iy;
const DESTINATION =
  /\(\s*(<[^<>\n]*>|[^\s()<>]*(?:\([^\s()<>]*\)[^\s()<>]*)*)(?:\s+("[^"]*"|'[^']*'|\([^)]*\)))?\s*\)/y;
/** Deeper nesting than this is shown as literal text; it only happens with hostile input. */
const MAX_DEPTH = 12;

/**
 * A small, forgiving inline parser (code spans, emphasis, strike, links, autolinks, escapes).
 * Unclosed delimiters, as in a reply that is still streaming, are kept as literal text. Partners
 * are found through indexes built in one pass, so hostile input stays near linear.
 */
export function parseMarkdownInline(text: string): MarkdownInline[] {
  return parseAt(text, 0);
}

/** Concatenated text of inline nodes, formatting dropped. */
export function plainInlineText(nodes: MarkdownInline[]): string {
  return nodes
    .map((node) =>
      node.type === 'text' || node.type === 'code' ? node.value : plainInlineText(node.children),
    )
    .join('');
}

function parseAt(text: string, depth: number): MarkdownInline[] {
  if (depth >= MAX_DEPTH) return text ? [{ type: 'text', value: text }] : [];
  const index = indexInline(text);
  const nodes: MarkdownInline[] = [];
  let buffer = '';
  const flush = (): void => {
    if (buffer) nodes.push({ type: 'text', value: buffer });
    buffer = '';
  };
  let position = 0;
  while (position < text.length) {
    const character = text[position] as string;
    if (character === '\\' && index.escaped[position + 1]) {
      buffer += text[position + 1];
      position += 2;
      continue;
    }
    if (character === '`') {
      const run = runLength(text, position, '`');
      const end = index.codeSpans.get(position);
      if (end === undefined) {
        buffer += '`'.repeat(run);
        position += run;
        continue;
      }
      flush();
      nodes.push({ type: 'code', value: trimCode(text.slice(position + run, end - run)) });
      position = end;
      continue;
    }
    if (character === '[' || (character === '!' && text[position + 1] === '[')) {
      const open = character === '!' ? position + 1 : position;
      const link = matchLink(text, open, index.brackets.get(open));
      if (link) {
        flush();
        nodes.push({ type: 'link', url: link.url, children: parseAt(link.label, depth + 1) });
        position = link.end;
        continue;
      }
    }
    if (character === '<') {
      AUTOLINK.lastIndex = position;
      const autolink = AUTOLINK.exec(text);
      if (autolink?.[1]) {
        flush();
        nodes.push({ type: 'link', url: autolink[1], children: [{ type: 'text', value: autolink[1] }] });
        position += autolink[0].length;
        continue;
      }
    }
    if ((character === '*' || character === '_' || character === '~') && !index.escaped[position]) {
      const run = runLength(text, position, character);
      const span = matchDelimited(text, position, run, character, index.closers);
      if (span) {
        flush();
        nodes.push({ type: span.type, children: parseAt(span.inner, depth + 1) });
        position = span.end;
        continue;
      }
      buffer += character.repeat(run);
      position += run;
      continue;
    }
    buffer += character;
    position += 1;
  }
  flush();
  return nodes;
}

interface InlineIndex {
  /** escaped[i] is 1 when character i is escaped by a backslash. */
  escaped: Uint8Array;
  /** Opening backtick run → position after its closing run. */
  codeSpans: Map<number, number>;
  /** '[' → matching ']', outside code spans. */
  brackets: Map<number, number>;
  /** `<char><size>` → positions (ascending) where a closing delimiter of that size can start. */
  closers: Map<string, number[]>;
}

function indexInline(text: string): InlineIndex {
  const escaped = new Uint8Array(text.length + 1);
  const codeSpans = new Map<number, number>();
  const brackets = new Map<number, number>();
  const closers = new Map<string, number[]>();
  const runsByLength = new Map<number, number[]>();
  for (let position = 0; position < text.length; ) {
    const run = runLength(text, position, '`');
    if (run === 0) {
      position += 1;
      continue;
    }
    const list = runsByLength.get(run) ?? [];
    list.push(position);
    runsByLength.set(run, list);
    position += run;
  }
  const stack: number[] = [];
  let position = 0;
  while (position < text.length) {
    const character = text[position] as string;
    if (character === '\\' && PUNCTUATION.test(text[position + 1] ?? '')) {
      escaped[position + 1] = 1;
      position += 2;
      continue;
    }
    if (character === '`') {
      const run = runLength(text, position, '`');
      const close = firstAtOrAfter(runsByLength.get(run) ?? [], position + run);
      if (close !== undefined && runLength(text, close, '`') === run) {
        codeSpans.set(position, close + run);
        position = close + run;
      } else {
        position += run;
      }
      continue;
    }
    if (character === '[') stack.push(position);
    else if (character === ']') {
      const open = stack.pop();
      if (open !== undefined) brackets.set(open, position);
    } else if (character === '*' || character === '_' || character === '~') {
      const run = runLength(text, position, character);
      const before = text[position - 1] ?? '';
      const after = text[position + run] ?? '';
      const rightFlanking = before !== '' && !WHITESPACE.test(before);
      if (rightFlanking && !(character === '_' && WORD_CHARACTER.test(after))) {
        for (const size of character === '~' ? [2] : [1, 2]) {
          if (run === size || (run > size && size === 2 && character !== '~')) {
            const key = `${character}${size}`;
            const list = closers.get(key) ?? [];
            list.push(position + run - size);
            closers.set(key, list);
          }
        }
      }
      position += run;
      continue;
    }
    position += 1;
  }
  return { escaped, codeSpans, brackets, closers };
}

function matchDelimited(
  text: string,
  start: number,
  run: number,
  character: string,
  closers: Map<string, number[]>,
): { type: 'strong' | 'emphasis' | 'strike'; inner: string; end: number } | undefined {
  const after = text[start + Math.min(run, 2)] ?? '';
  if (character === '_' && WORD_CHARACTER.test(text[start - 1] ?? '')) return undefined;
  const sizes = character === '~' ? (run === 2 ? [2] : []) : [...new Set([Math.min(run, 2), 1])];
  for (const size of sizes) {
    // Surplus delimiter characters stay inside: `***a***` is strong around emphasis.
    const first = text[start + size] ?? '';
    if (first === '' || WHITESPACE.test(first) || (size === 2 && WHITESPACE.test(after))) continue;
    const close = firstAtOrAfter(closers.get(`${character}${size}`) ?? [], start + size + 1);
    if (close === undefined) continue;
    const type = character === '~' ? 'strike' : size === 2 ? 'strong' : 'emphasis';
    return { type, inner: text.slice(start + size, close), end: close + size };
  }
  return undefined;
}

function matchLink(
  text: string,
  open: number,
  close: number | undefined,
): { label: string; url: string; end: number } | undefined {
  if (close === undefined || text[close + 1] !== '(') return undefined;
  const label = text.slice(open + 1, close);
  if (label.includes('\n\n')) return undefined;
  DESTINATION.lastIndex = close + 1;
  const destination = DESTINATION.exec(text);
  if (!destination) return undefined;
  const raw = destination[1] ?? '';
  const url = raw.startsWith('<') ? raw.slice(1, -1) : raw;
  if (url === '') return undefined;
  return { label, url, end: close + 1 + destination[0].length };
}

function firstAtOrAfter(sorted: number[], minimum: number): number | undefined {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if ((sorted[middle] as number) < minimum) low = middle + 1;
    else high = middle;
  }
  return sorted[low];
}

function runLength(text: string, start: number, character: string): number {
  let end = start;
  while (text[end] === character) end += 1;
  return end - start;
}

function trimCode(value: string): string {
  const flat = value.replace(/\n/g, ' ');
  return flat.length > 2 && flat.startsWith(' ') && flat.endsWith(' ') && flat.trim() !== ''
    ? flat.slice(1, -1)
    : flat;
}
