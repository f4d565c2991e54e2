import { type Inline, parseInline } from './parse-inline.ts';

export type Align = 'left' | 'center' | 'right' | undefined;

/** Block-level Markdown as plain data; see parse-inline.ts for why nothing here is HTML. */
export type Block =
  | { kind: 'heading'; level: 1 | 2 | 3 | 4 | 5 | 6; content: Inline[] }
  | { kind: 'paragraph'; content: Inline[] }
  | { kind: 'code'; language: string; text: string; open: boolean }
  | { kind: 'quote'; blocks: Block[] }
  | { kind: 'list'; ordered: boolean; start: number; items: Block[][] }
  | { kind: 'table'; align: Align[]; head: Inline[][]; rows: Inline[][][] }
  | { kind: 'rule' };

const fenceStart = /^ {0,3}(`{3,}|~{3,})\s*([\w+#.-]*)/;
const heading = /^ {0,3}(#{1,6})\s+(.*?)(?:\s+#+)?\s*$/;
const rule = /^ {0,3}([-*_])(?:\s*\1){2,}\s*$/;
const quote = /^ {0,3}> ?/;
const listItem = /^( {0,3})([-*+]|\d{1,9}[.)])(\s+|$)/;
const tableDivider = /^\s*\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$/;

/** Parses Markdown into blocks. Deeply nested input is flattened past a fixed depth. */
export function parseBlocks(source: string, depth = 0): Block[] {
  const lines = source.replace(/\r\n?/g, '\n').split('\n');
  const blocks: Block[] = [];
  let index = 0;
  while (index < lines.length) {
    const line = lines[index]!;
    if (line.trim() === '') {
      index += 1;
      continue;
    }
    const parsed = parseOne(lines, index, depth);
    blocks.push(parsed.block);
    index = parsed.next;
  }
  return blocks;
}

function parseOne(lines: string[], index: number, depth: number): { block: Block; next: number } {
  const line = lines[index]!;
  const fence = fenceStart.exec(line);
  if (fence) return codeBlock(lines, index, fence[1]!, fence[2] ?? '');
  const title = heading.exec(line);
  if (title) {
    const level = title[1]!.length as 1 | 2 | 3 | 4 | 5 | 6;
    return { block: { kind: 'heading', level, content: parseInline(title[2]!) }, next: index + 1 };
  }
  if (rule.test(line)) return { block: { kind: 'rule' }, next: index + 1 };
  if (depth < 8 && quote.test(line)) {
    let end = index;
    while (end < lines.length && quote.test(lines[end]!)) end += 1;
    const inner = lines.slice(index, end).map((text) => text.replace(quote, ''));
    return { block: { kind: 'quote', blocks: parseBlocks(inner.join('\n'), depth + 1) }, next: end };
  }
  if (depth < 8 && listItem.test(line)) return list(lines, index, depth);
  if (line.includes('|') && tableDivider.test(lines[index + 1] ?? '') && lines[index + 1]!.includes('-'))
    return table(lines, index);
  let end = index + 1;
  while (end < lines.length && lines[end]!.trim() !== '' && !startsBlock(lines[end]!)) end += 1;
  const text = lines
    .slice(index, end)
    .map((part) => part.trim())
    .join('\n');
  return { block: { kind: 'paragraph', content: parseInline(text) }, next: end };
}

function startsBlock(line: string): boolean {
  return (
    fenceStart.test(line) || heading.test(line) || rule.test(line) || quote.test(line) || listItem.test(line)
  );
}

function codeBlock(lines: string[], index: number, marker: string, language: string) {
  const close = new RegExp(`^ {0,3}${marker[0] === '`' ? '`' : '~'}{${marker.length},}\\s*$`);
  const body: string[] = [];
  let end = index + 1;
  while (end < lines.length && !close.test(lines[end]!)) {
    body.push(lines[end]!);
    end += 1;
  }
  // An unclosed fence is a code block still streaming in: it runs to the end of the text.
  const open = end >= lines.length;
  return {
    block: { kind: 'code', language: language.toLowerCase(), text: body.join('\n'), open } as Block,
    next: open ? end : end + 1,
  };
}

function list(lines: string[], index: number, depth: number) {
  const first = listItem.exec(lines[index]!)!;
  const ordered = /\d/.test(first[2]!);
  const items: string[][] = [];
  let end = index;
  while (end < lines.length) {
    const line = lines[end]!;
    const item = listItem.exec(line);
    if (item && /\d/.test(item[2]!) === ordered && item[1]!.length <= first[1]!.length + 1) {
      items.push([line.slice(item[0].length)]);
    } else if (line.trim() === '') {
      // A blank line ends the list unless the next line continues it (indented or another item).
      const next = lines[end + 1] ?? '';
      if (!/^\s{2,}\S/.test(next) && !listItem.test(next)) break;
      items.at(-1)!.push('');
    } else if (/^\s{2,}/.test(line) || !startsBlock(line)) {
      items.at(-1)!.push(line.replace(/^\s{1,4}/, ''));
    } else break;
    end += 1;
  }
  const start = ordered ? Number.parseInt(first[2]!, 10) : 1;
  return {
    block: {
      kind: 'list',
      ordered,
      start,
      items: items.map((item) => parseBlocks(item.join('\n'), depth + 1)),
    } as Block,
    next: end,
  };
}

function table(lines: string[], index: number) {
  const head = cellsOf(lines[index]!);
  const align = cellsOf(lines[index + 1]!).map((cell): Align => {
    const left = cell.startsWith(':');
    const right = cell.endsWith(':');
    return left && right ? 'center' : right ? 'right' : left ? 'left' : undefined;
  });
  const rows: Inline[][][] = [];
  let end = index + 2;
  while (end < lines.length && lines[end]!.includes('|') && lines[end]!.trim() !== '') {
    const cells = cellsOf(lines[end]!);
    rows.push(head.map((_, column) => parseInline(cells[column] ?? '')));
    end += 1;
  }
  return {
    block: { kind: 'table', align, head: head.map((cell) => parseInline(cell)), rows } as Block,
    next: end,
  };
}

function cellsOf(line: string): string[] {
  const trimmed = line
    .trim()
    .replace(/^\|/, '')
    .replace(/(?<!\\)\|$/, '');
  return trimmed.split(/(?<!\\)\|/).map((cell) => cell.trim().replace(/\\\|/g, '|'));
}
