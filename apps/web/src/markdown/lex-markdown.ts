import { Lexer, type MarkedOptions, type Token, type Tokens, type TokensList } from 'marked';
import { mathBlock, mathInline, mathInlineStart } from './math-extension.ts';

export type { Token } from 'marked';
export type LinkDefinitions = TokensList['links'];

/**
 * GitHub Flavored Markdown (tables, task lists, strike-through, autolinks) plus TeX math, as
 * marked's tokens. Only the lexer is used: the tokens become Preact elements
 * (components/markdown-view.tsx), never an HTML string.
 */
const options: MarkedOptions = {
  gfm: true,
  breaks: false,
  pedantic: false,
  silent: true,
  extensions: {
    renderers: {},
    childTokens: {},
    block: [mathBlock],
    inline: [mathInline],
    startInline: [mathInlineStart],
  },
};

/**
 * Inline text whose tokens are not made yet: the (empty) array marked gave a paragraph, heading,
 * table cell or list item text, and what to lex into it. marked lexes in two passes, blocks then
 * inlines, because a reference definition anywhere in the text decides links everywhere; the
 * second pass is about half the work, and a long reply shows a few of its blocks at first.
 */
interface PendingInline {
  lexer: Lexer;
  source: string;
}
const pendingInlines = new WeakMap<Token[], PendingInline>();

/**
 * The blocks of `source` (line endings already \n). Their inline tokens are made when
 * `lexInlines` is called for them, which every consumer does before reading a block's inside.
 * `links` are reference definitions already known from earlier text (a streamed reply lexes only
 * its tail); definitions found here are added to the result's `links`.
 */
export function lexBlocks(source: string, links?: LinkDefinitions): TokensList {
  const lexer = new Lexer({ ...options });
  if (links) Object.assign(lexer.tokens.links, links);
  try {
    lexer.blockTokens(source, lexer.tokens);
    // The queue is read only now: the block pass still edits its entries (a paragraph that
    // continues on the next line, a list item's task box) until it ends.
    for (const { src, tokens: target } of lexer.inlineQueue)
      pendingInlines.set(target, { lexer, source: src });
    lexer.inlineQueue = [];
    return lexer.tokens;
  } catch {
    return unparsed(source, lexer.tokens.links);
  }
}

/** Makes the inline tokens inside `block` (at any depth) that are not made yet; returns it. */
export function lexInlines<T extends Token>(block: T): T {
  visitTokenArrays(block, (target) => {
    const pending = pendingInlines.get(target);
    if (!pending) return;
    pendingInlines.delete(target);
    const { lexer } = pending;
    // As marked's own second pass does before each entry.
    lexer.state.inRawBlock = false;
    try {
      lexInlineText(lexer, pending.source, target);
    } catch {
      // Emphasis nested thousands deep exhausts the stack: the text is shown as written.
      target.length = 0;
      target.push({ type: 'text', raw: pending.source, text: pending.source, escaped: true });
    }
  });
  return block;
}

/**
 * marked matches each emphasis opener by scanning the rest of the text for its closer, so
 * emphasis nested deep costs the square of the text's length (16 KB of `*_a ` took 1.8 s here, a
 * tab frozen for a minute at 100 KB). Long text with that many delimiters is lexed in pieces of
 * at most `pieceChars`, cut at a line end or a space: the scan stops at a piece's end, and an
 * emphasis or link that crosses a cut shows as the characters it was written with.
 */
const piecesAbove = 2048;
const piecesAboveDelimiters = 64;
const pieceChars = 512;

function lexInlineText(lexer: Lexer, source: string, target: Token[]): void {
  if (source.length <= piecesAbove || delimiters(source) <= piecesAboveDelimiters) {
    lexer.inlineTokens(source, target);
    return;
  }
  for (let start = 0; start < source.length; ) {
    const end = pieceEnd(source, start);
    lexer.inlineTokens(source.slice(start, end), target);
    start = end;
  }
}

function delimiters(source: string): number {
  let count = 0;
  for (let index = 0; index < source.length; index++) {
    const code = source.charCodeAt(index);
    if (code === 42 || code === 95 || code === 126) count += 1; // * _ ~
  }
  return count;
}

/** Where the piece from `start` ends: after the last line end, else space, in its second half. */
function pieceEnd(source: string, start: number): number {
  const limit = start + pieceChars;
  if (limit >= source.length) return source.length;
  for (const separator of ['\n', ' ']) {
    const at = source.lastIndexOf(separator, limit - 1);
    if (at >= start + pieceChars / 2) return at + 1;
  }
  // No break in sight: never between the two halves of a surrogate pair.
  const code = source.charCodeAt(limit - 1);
  return code >= 0xd800 && code <= 0xdbff ? limit - 1 : limit;
}

/** Tokens of `source` with every inline made: `lexBlocks` followed by `lexInlines` on each block. */
export function lexMarkdown(source: string, links?: LinkDefinitions): TokensList {
  const tokens = lexBlocks(source, links);
  for (const block of tokens) lexInlines(block);
  return tokens;
}

/**
 * marked recurses once per level of nesting: thousands of nested quotes or lists exhaust the
 * stack. Such text is shown as it was written rather than not at all.
 */
function unparsed(source: string, links: LinkDefinitions): TokensList {
  return Object.assign([{ type: 'unparsed', raw: source, text: source }], { links }) as TokensList;
}

/** Calls `visit` with every child-token array under `token`: where marked puts inline tokens. */
function visitTokenArrays(token: Token, visit: (target: Token[]) => void): void {
  if (token.type === 'table') {
    const table = token as Tokens.Table;
    for (const cell of table.header) visit(cell.tokens);
    for (const row of table.rows) for (const cell of row) visit(cell.tokens);
    return;
  }
  if (token.type === 'list') {
    for (const item of (token as Tokens.List).items) visitAll(item.tokens, visit);
    return;
  }
  const children = (token as { tokens?: Token[] }).tokens;
  if (children) visitAll(children, visit);
}

function visitAll(tokens: Token[], visit: (target: Token[]) => void): void {
  visit(tokens);
  for (const child of tokens) visitTokenArrays(child, visit);
}
