import { parseFenceLines } from './fence-lines.ts';

/** The block structure renderers need; anything unrecognised is a paragraph. */
export type MarkdownBlock =
  | { type: 'code'; info: string; text: string }
  | { type: 'heading'; level: number; text: string }
  | { type: 'quote'; text: string }
  | { type: 'list-item'; indent: string; marker: string; ordered: boolean; text: string }
  | { type: 'rule' }
  | { type: 'paragraph'; text: string }
  | { type: 'blank' };

const HEADING = /^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/;
const RULE = /^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$/;
const QUOTE = /^ {0,3}> ?(.*)$/;
const LIST_ITEM = /^([ \t]*)([-*+]|\d{1,9}[.)])[ \t]+(.*)$/;

/** Line-oriented block parser: one block per line except code, quotes and paragraphs. */
export function parseMarkdownBlocks(markdown: string): MarkdownBlock[] {
  const text = markdown.replace(/\r\n?/g, '\n');
  const lines = parseFenceLines(text);
  const blocks: MarkdownBlock[] = [];
  let index = 0;
  while (index < lines.length) {
    const line = lines[index] as (typeof lines)[number];
    const source = text.slice(line.start, line.end);
    if (line.role === 'open') {
      const content: string[] = [];
      index += 1;
      while (index < lines.length && lines[index]?.role === 'content') {
        const inner = lines[index] as (typeof lines)[number];
        content.push(text.slice(inner.start, inner.end));
        index += 1;
      }
      if (lines[index]?.role === 'close') index += 1;
      // A fence at the very end of the text leaves one empty content line behind.
      if (content.length > 0 && content.at(-1) === '' && index >= lines.length) content.pop();
      blocks.push({ type: 'code', info: line.fence?.info ?? '', text: content.join('\n') });
      continue;
    }
    index += 1;
    if (source.trim() === '') {
      blocks.push({ type: 'blank' });
      continue;
    }
    const heading = HEADING.exec(source);
    if (heading) {
      blocks.push({ type: 'heading', level: heading[1]?.length ?? 1, text: heading[2] ?? '' });
      continue;
    }
    if (RULE.test(source)) {
      blocks.push({ type: 'rule' });
      continue;
    }
    const quote = QUOTE.exec(source);
    if (quote) {
      const quoted = [quote[1] ?? ''];
      while (index < lines.length) {
        const next = lines[index] as (typeof lines)[number];
        const match = next.role === 'text' ? QUOTE.exec(text.slice(next.start, next.end)) : null;
        if (!match) break;
        quoted.push(match[1] ?? '');
        index += 1;
      }
      blocks.push({ type: 'quote', text: quoted.join('\n') });
      continue;
    }
    const item = LIST_ITEM.exec(source);
    if (item) {
      const marker = item[2] ?? '-';
      const ordered = /\d/.test(marker);
      blocks.push({ type: 'list-item', indent: item[1] ?? '', marker, ordered, text: item[3] ?? '' });
      continue;
    }
    const previous = blocks.at(-1);
    if (previous?.type === 'paragraph') previous.text += `\n${source}`;
    else blocks.push({ type: 'paragraph', text: source });
  }
  return blocks;
}
