/** A fenced code block as opened in the source: enough to reopen and close it elsewhere. */
export interface Fence {
  /** The opening line without its newline, e.g. "```ts" or "  ~~~~ python". */
  openerLine: string;
  /** Fence character run, e.g. "```"; a closing line needs the same character, at least as long. */
  marker: string;
  info: string;
}

export type LineRole = 'text' | 'open' | 'content' | 'close';

export interface FenceLine {
  start: number;
  /** End of the line's text, before any "\r\n" or "\n". */
  end: number;
  /** Start of the next line (end of text for the last line). */
  next: number;
  role: LineRole;
  /** The fence this line opens, belongs to or closes. */
  fence?: Fence;
}

// Lenient on indentation on purpose: models often indent fences inside list items.
const OPENER = /^[ \t]*(`{3,}|~{3,})(.*)$/;
const CLOSER = /^[ \t]*(`{3,}|~{3,})[ \t]*$/;

/** Splits text into lines and marks which ones open, belong to or close a fenced code block. */
export function parseFenceLines(text: string): FenceLine[] {
  const lines: FenceLine[] = [];
  let open: Fence | undefined;
  let start = 0;
  while (start <= text.length) {
    const newline = text.indexOf('\n', start);
    const lineEnd = newline === -1 ? text.length : newline;
    const next = newline === -1 ? text.length : newline + 1;
    const end = lineEnd > start && text.charCodeAt(lineEnd - 1) === 13 ? lineEnd - 1 : lineEnd;
    const line = text.slice(start, end);
    if (open) {
      const closer = CLOSER.exec(line);
      const run = closer?.[1];
      if (run && run[0] === open.marker[0] && run.length >= open.marker.length) {
        lines.push({ start, end, next, role: 'close', fence: open });
        open = undefined;
      } else {
        lines.push({ start, end, next, role: 'content', fence: open });
      }
    } else {
      const opener = OPENER.exec(line);
      const marker = opener?.[1];
      const info = (opener?.[2] ?? '').trim();
      if (marker && !(marker[0] === '`' && info.includes('`'))) {
        open = { openerLine: line, marker, info };
        lines.push({ start, end, next, role: 'open', fence: open });
      } else {
        lines.push({ start, end, next, role: 'text' });
      }
    }
    if (newline === -1) break;
    start = next;
  }
  return lines;
}
