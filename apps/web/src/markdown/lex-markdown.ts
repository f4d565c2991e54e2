import { Lexer, type MarkedOptions, type TokensList } from 'marked';
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
 * Tokens of `source`. `links` are reference definitions already known from earlier text (a
 * streamed reply lexes only its tail); definitions found here are added to the result's `links`.
 */
export function lexMarkdown(source: string, links?: LinkDefinitions): TokensList {
  const lexer = new Lexer({ ...options });
  if (links) Object.assign(lexer.tokens.links, links);
  try {
    return lexer.lex(source);
  } catch {
    // marked recurses once per level of nesting: thousands of nested quotes or lists exhaust the
    // stack. Such text is shown as it was written rather than not at all.
    const unparsed = Object.assign([{ type: 'unparsed', raw: source, text: source }], {
      links: lexer.tokens.links,
    });
    return unparsed as TokensList;
  }
}
