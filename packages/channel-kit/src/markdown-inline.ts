/** Inline Markdown as the renderers need it; anything unmatched stays literal text. */
export type MarkdownInline =
  | { type: 'text'; value: string }
  | { type: 'code'; value: string }
  | { type: 'strong' | 'emphasis' | 'strike'; children: MarkdownInline[] }
  | { type: 'link'; url: string; children: MarkdownInline[] };

const PUNCTUATION = /[!-/:-@[-`{-~]/;
const WORD_CHARACTER = /[\p{L}\p{N}]/u;
const AUTOLINK = /^<((?:https?|mailto):[^\s<>]+)>/i;
/** Bounds how far a delimiter looks for its partner, so hostile input stays linear-ish. */
const SEARCH_WINDOW = 4096;

/**
 * A small, forgiving inline parser (code spans, emphasis, strike, links, autolinks, escapes).
 * Unclosed delimiters, as in a reply that is still streaming, are kept as literal text.
 */
export function parseMarkdownInline(text: string): MarkdownInline[] {
  const nodes: MarkdownInline[] = [];
  let buffer = '';
  const flush = (): void => {
    if (buffer) nodes.push({ type: 'text', value: buffer });
    buffer = '';
  };
  let index = 0;
  while (index < text.length) {
    const character = text[index] as string;
    if (character === '\\' && PUNCTUATION.test(text[index + 1] ?? '')) {
      buffer += text[index + 1];
      index += 2;
      continue;
    }
    if (character === '`') {
      const run = runLength(text, index, '`');
      const close = findCodeClose(text, index + run, run);
      if (close === -1) {
        buffer += '`'.repeat(run);
        index += run;
        continue;
      }
      flush();
      nodes.push({ type: 'code', value: trimCode(text.slice(index + run, close)) });
      index = close + run;
      continue;
    }
    if (character === '[' || (character === '!' && text[index + 1] === '[')) {
      const link = parseLink(text, character === '!' ? index + 1 : index);
      if (link) {
        flush();
        nodes.push({ type: 'link', url: link.url, children: parseMarkdownInline(link.label) });
        index = link.end;
        continue;
      }
    }
    if (character === '<') {
      const autolink = AUTOLINK.exec(text.slice(index, index + 2048));
      if (autolink?.[1]) {
        flush();
        nodes.push({ type: 'link', url: autolink[1], children: [{ type: 'text', value: autolink[1] }] });
        index += autolink[0].length;
        continue;
      }
    }
    if (character === '*' || character === '_' || character === '~') {
      const run = runLength(text, index, character);
      const span = parseDelimited(text, index, run, character);
      if (span) {
        flush();
        nodes.push({ type: span.type, children: parseMarkdownInline(span.inner) });
        index = span.end;
        continue;
      }
      buffer += character.repeat(run);
      index += run;
      continue;
    }
    buffer += character;
    index += 1;
  }
  flush();
  return nodes;
}

/** Concatenated text of inline nodes, formatting dropped. */
export function plainInlineText(nodes: MarkdownInline[]): string {
  return nodes
    .map((node) =>
      node.type === 'text' || node.type === 'code' ? node.value : plainInlineText(node.children),
    )
    .join('');
}

function runLength(text: string, start: number, character: string): number {
  let end = start;
  while (text[end] === character) end += 1;
  return end - start;
}

function findCodeClose(text: string, from: number, run: number): number {
  let index = text.indexOf('`'.repeat(run), from);
  while (index !== -1) {
    const length = runLength(text, index, '`');
    if (length === run) return index;
    index = text.indexOf('`'.repeat(run), index + length);
  }
  return -1;
}

function trimCode(value: string): string {
  const flat = value.replace(/\n/g, ' ');
  return flat.length > 2 && flat.startsWith(' ') && flat.endsWith(' ') && flat.trim() !== ''
    ? flat.slice(1, -1)
    : flat;
}

function parseDelimited(
  text: string,
  start: number,
  run: number,
  character: string,
): { type: 'strong' | 'emphasis' | 'strike'; inner: string; end: number } | undefined {
  const sizes = character === '~' ? (run === 2 ? [2] : []) : [...new Set([Math.min(run, 2), 1])];
  for (const size of sizes) {
    // Surplus delimiter characters stay inside: `***a***` is strong around emphasis.
    const open = start;
    const after = text[open + size] ?? '';
    if (after === '' || /\s/.test(after)) continue;
    if (character === '_' && WORD_CHARACTER.test(text[start - 1] ?? '')) continue;
    const close = findDelimiterClose(text, open + size + 1, character, size);
    if (close === -1) continue;
    const type = character === '~' ? 'strike' : size === 2 ? 'strong' : 'emphasis';
    return { type, inner: text.slice(open + size, close), end: close + size };
  }
  return undefined;
}

/** Finds a closing run for a delimiter of `size`, skipping code spans and escapes. */
function findDelimiterClose(text: string, from: number, character: string, size: number): number {
  let index = from;
  const limit = Math.min(text.length, from + SEARCH_WINDOW);
  while (index < limit) {
    const current = text[index];
    if (current === '\\') {
      index += 2;
      continue;
    }
    if (current === '`') {
      const run = runLength(text, index, '`');
      const close = findCodeClose(text, index + run, run);
      index = close === -1 ? index + run : close + run;
      continue;
    }
    if (current !== character) {
      index += 1;
      continue;
    }
    const run = runLength(text, index, character);
    const before = text[index - 1] ?? '';
    const next = text[index + run] ?? '';
    const rightFlanking = before !== '' && !/\s/.test(before);
    const wordAfter = character === '_' && WORD_CHARACTER.test(next);
    if (rightFlanking && !wordAfter && (run === size || (run > size && size === 2))) {
      return index + run - size;
    }
    index += run;
  }
  return -1;
}

function parseLink(text: string, start: number): { label: string; url: string; end: number } | undefined {
  let depth = 0;
  let index = start;
  const limit = Math.min(text.length, start + SEARCH_WINDOW);
  for (; index < limit; index += 1) {
    const character = text[index];
    if (character === '\\') index += 1;
    else if (character === '[') depth += 1;
    else if (character === ']') {
      depth -= 1;
      if (depth === 0) break;
    } else if (character === '\n' && text[index + 1] === '\n') return undefined;
  }
  if (depth !== 0 || text[index + 1] !== '(') return undefined;
  const label = text.slice(start + 1, index);
  const destination =
    /^\(\s*(<[^<>\n]*>|[^\s()<>]*(?:\([^\s()<>]*\)[^\s()<>]*)*)(?:\s+("[^"]*"|'[^']*'|\([^)]*\)))?\s*\)/.exec(
      text.slice(index + 1, index + 4096),
    );
  if (!destination) return undefined;
  const raw = destination[1] ?? '';
  const url = raw.startsWith('<') ? raw.slice(1, -1) : raw;
  if (url === '') return undefined;
  return { label, url, end: index + 1 + destination[0].length };
}
