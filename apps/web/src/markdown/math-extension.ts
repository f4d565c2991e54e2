import type { TokenizerExtensionFunction, TokenizerStartFunction, Tokens } from 'marked';

/** A TeX formula from the model: `$…$` or `\(…\)` inline, `$$…$$` or `\[…\]` on lines of their own. */
export interface MathToken extends Tokens.Generic {
  type: 'math';
  raw: string;
  tex: string;
  display: boolean;
}

// Display math starts a block and closes before the next blank line: an unclosed `$$` while a
// reply streams stays plain text until its closing `$$` arrives. Stopping at a blank line keeps
// the search inside one paragraph, so lexing stays linear when a closing delimiter never comes.
const blockDollars = /^ {0,3}\$\$((?:[^$\n]|\$(?!\$)|\n(?![ \t]*\n))+?)\$\$[ \t]*(?:\n|$)/;
const blockBrackets = /^ {0,3}\\\[((?:[^\\\n]|\\(?!\])|\n(?![ \t]*\n))+?)\\\][ \t]*(?:\n|$)/;
// Inline `$…$` as Pandoc reads it: no space inside either dollar, no digit after the closing
// one, one line — so "costs $5 and $10" stays text.
const inlineDollars = /^\$(?![\s$])((?:\\.|[^\\$\n])+?)(?<![\s\\])\$(?!\d)/;
const inlineDisplayDollars = /^\$\$(?!\s)((?:\\.|[^\\$])+?)\$\$/;
/** Longest inline `\(…\)` formula looked for; bounds the search when `\)` never comes. */
const inlineMaxLength = 500;

export const mathBlock: TokenizerExtensionFunction = (source) => {
  const first = source.charCodeAt(source.search(/\S/));
  if (first !== 36 /* $ */ && first !== 92 /* \ */) return undefined;
  const match = blockDollars.exec(source) ?? blockBrackets.exec(source);
  if (!match) return undefined;
  return { type: 'math', raw: match[0], tex: match[1]!.trim(), display: true } satisfies MathToken;
};

export const mathInline: TokenizerExtensionFunction = (source) => {
  const first = source.charCodeAt(0);
  if (first === 36 /* $ */) {
    const display = inlineDisplayDollars.exec(source);
    if (display) return { type: 'math', raw: display[0], tex: display[1]!.trim(), display: true };
    const match = inlineDollars.exec(source);
    if (match) return { type: 'math', raw: match[0], tex: match[1]!, display: false } satisfies MathToken;
    return undefined;
  }
  if (first === 92 /* \ */ && source.charCodeAt(1) === 40 /* ( */) {
    const end = source.slice(0, inlineMaxLength).indexOf('\\)', 2);
    if (end === -1) return undefined;
    const tex = source.slice(2, end).trim();
    if (tex === '') return undefined;
    return { type: 'math', raw: source.slice(0, end + 2), tex, display: false } satisfies MathToken;
  }
  return undefined;
};

const lookahead = 256;

/**
 * Where inline math may start, so marked's plain-text rule stops there. It looks a bounded
 * distance ahead (cutting at a space when nothing is found), because marked asks again at every
 * step of a paragraph and an unbounded search would make a long paragraph quadratic.
 */
export const mathInlineStart: TokenizerStartFunction = (source) => {
  const window = source.length > lookahead ? source.slice(0, lookahead) : source;
  const dollar = window.indexOf('$');
  if (dollar !== -1) return dollar;
  if (window.length < lookahead) return undefined;
  const space = window.lastIndexOf(' ');
  return space > 0 ? space : undefined;
};
