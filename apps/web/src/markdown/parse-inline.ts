/**
 * Inline Markdown as a tree of plain strings. Nothing here is HTML: the view turns every node into
 * DOM through Preact, so text from the model can never become markup. Links survive only with an
 * http, https or mailto target; images are kept as their alt text, because loading an image URL
 * written by a prompt-injected model could carry conversation data to a third party.
 */
export type Inline =
  | { kind: 'text'; text: string }
  | { kind: 'code'; text: string }
  | { kind: 'strong' | 'em' | 'del'; children: Inline[] }
  | { kind: 'link'; href: string; children: Inline[] }
  | { kind: 'break' };

const allowedLink = /^(?:https?:\/\/|mailto:)[^\s<>"'`\\]*$/i;
const bareUrl = /^https?:\/\/[^\s<>"'`]*[^\s<>"'`.,;:!?)\]]/i;
const escapable = /[\\`*_{}[\]()#+\-.!~|>]/;

/** A link target, or undefined when it is not one this page will follow. */
export function safeHref(url: string): string | undefined {
  const trimmed = url.trim();
  return allowedLink.test(trimmed) ? trimmed : undefined;
}

export function parseInline(source: string): Inline[] {
  const nodes: Inline[] = [];
  let text = '';
  const flush = () => {
    if (text !== '') nodes.push({ kind: 'text', text });
    text = '';
  };
  let index = 0;
  while (index < source.length) {
    const rest = source.slice(index);
    const char = source[index]!;
    const match = matchInline(rest, char, index === 0 ? ' ' : source[index - 1]!);
    if (match === undefined) {
      text += char;
      index += 1;
      continue;
    }
    if (match.node.kind === 'text') text += match.node.text;
    else {
      flush();
      nodes.push(match.node);
    }
    index += match.length;
  }
  flush();
  return nodes;
}

interface InlineMatch {
  node: Inline;
  length: number;
}

function matchInline(rest: string, char: string, before: string): InlineMatch | undefined {
  switch (char) {
    case '\\':
      if (rest[1] === '\n') return { node: { kind: 'break' }, length: 2 };
      return rest.length > 1 && escapable.test(rest[1]!)
        ? { node: { kind: 'text', text: rest[1]! }, length: 2 }
        : undefined;
    case '\n':
      return { node: { kind: 'break' }, length: 1 };
    case '`':
      return codeSpan(rest);
    case '*':
    case '_':
      return emphasis(rest, char, before);
    case '~':
      return delimited(rest, '~~', 'del');
    case '!':
      // An image: only its alt text is shown, never fetched.
      return rest[1] === '[' ? linkOrImage(rest.slice(1), true, 1) : undefined;
    case '[':
      return linkOrImage(rest, false, 0);
    case 'h':
    case 'H':
      return autolink(rest, before);
    default:
      return undefined;
  }
}

function codeSpan(rest: string): InlineMatch | undefined {
  const fence = /^`+/.exec(rest)![0];
  const end = rest.indexOf(fence, fence.length);
  if (end < 0) return { node: { kind: 'text', text: fence }, length: fence.length };
  let code = rest.slice(fence.length, end).replace(/\n/g, ' ');
  if (code.length > 2 && code.startsWith(' ') && code.endsWith(' ')) code = code.slice(1, -1);
  return { node: { kind: 'code', text: code }, length: end + fence.length };
}

function emphasis(rest: string, char: string, before: string): InlineMatch | undefined {
  // Intraword underscores (snake_case) are text, as in CommonMark.
  if (char === '_' && /[\p{L}\p{N}]/u.test(before)) return undefined;
  const double = char.repeat(2);
  if (rest.startsWith(double)) return delimited(rest, double, 'strong');
  return delimited(rest, char, 'em');
}

function delimited(rest: string, marker: string, kind: 'strong' | 'em' | 'del'): InlineMatch | undefined {
  if (!rest.startsWith(marker) || /^\s/.test(rest.slice(marker.length))) return undefined;
  let search = marker.length + 1;
  for (;;) {
    const end = rest.indexOf(marker, search);
    if (end < 0) return undefined;
    const after = rest[end + marker.length];
    // `**a**` closes at the first marker not preceded by whitespace and not part of a longer run;
    // an underscore inside a word (`__init__x`) does not close, as in CommonMark.
    const closes =
      !/\s/.test(rest[end - 1]!) &&
      (after !== marker[0] || kind === 'del') &&
      !(marker[0] === '_' && after !== undefined && /[\p{L}\p{N}]/u.test(after));
    if (closes) {
      const inner = rest.slice(marker.length, end);
      return { node: { kind, children: parseInline(inner) }, length: end + marker.length };
    }
    search = end + 1;
  }
}

function linkOrImage(rest: string, image: boolean, offset: number): InlineMatch | undefined {
  const label = bracketed(rest, '[', ']');
  if (label === undefined) return undefined;
  const afterLabel = rest.slice(label.length + 2);
  if (!afterLabel.startsWith('(')) return undefined;
  const target = bracketed(afterLabel, '(', ')');
  if (target === undefined) return undefined;
  const length = offset + label.length + 2 + target.length + 2;
  const href = safeHref(target.split(/\s+"/)[0]!.replace(/^<|>$/g, ''));
  const children = parseInline(label);
  if (image) return { node: { kind: 'em', children: [{ kind: 'text', text: label || 'image' }] }, length };
  // A link this page will not follow keeps its words and loses its target.
  if (href === undefined) return { node: { kind: 'text', text: label }, length };
  return { node: { kind: 'link', href, children }, length };
}

/** The text between an opening and its matching closing bracket, nesting counted. */
function bracketed(rest: string, open: string, close: string): string | undefined {
  let depth = 0;
  for (let index = 0; index < rest.length; index += 1) {
    const char = rest[index];
    if (char === '\\') index += 1;
    else if (char === open) depth += 1;
    else if (char === close) {
      depth -= 1;
      if (depth === 0) return rest.slice(1, index);
    } else if (char === '\n' && rest[index + 1] === '\n') return undefined;
  }
  return undefined;
}

function autolink(rest: string, before: string): InlineMatch | undefined {
  if (/[\p{L}\p{N}]/u.test(before)) return undefined;
  const url = bareUrl.exec(rest)?.[0];
  const href = url === undefined ? undefined : safeHref(url);
  if (url === undefined || href === undefined) return undefined;
  return { node: { kind: 'link', href, children: [{ kind: 'text', text: url }] }, length: url.length };
}
