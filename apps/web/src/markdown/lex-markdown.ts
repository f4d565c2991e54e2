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
      lexer.inlineTokens(pending.source, target);
    } catch {
      // Emphasis nested thousands deep exhausts the stack: the text is shown as written.
      target.length = 0;
      target.push({ type: 'text', raw: pending.source, text: pending.source, escaped: true });
    }
  });
  return block;
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
