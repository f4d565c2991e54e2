import { type LinkDefinitions, lexMarkdown, type Token } from './lex-markdown.ts';

/**
 * The tokens of a reply that grows while it streams. Blocks before the last one are finished:
 * their tokens (the same objects, so their elements are kept) are reused, and only the text from
 * the last block on is lexed again. A chunk costs the length of the last block, not of the reply.
 */
export class IncrementalMarkdown {
  private source = '';
  private tokens: Token[] = [];
  /** Tokens at the start of `tokens` that appended text cannot change, and their length. */
  private kept = 0;
  private keptLength = 0;
  private links: LinkDefinitions = Object.create(null);
  /** Whether a reference definition arrived after text that may use it was lexed. */
  private linksLate = false;

  /** Tokens of `text`. `final` is the complete reply: late reference definitions apply then. */
  update(text: string, final = false): readonly Token[] {
    const source = text.includes('\r') ? text.replace(/\r\n?/g, '\n') : text;
    if (final && this.linksLate) return this.relex(source);
    if (source === this.source) return this.tokens;
    if (this.source === '' || source.length < this.source.length || !source.startsWith(this.source))
      return this.relex(source);
    const known = Object.keys(this.links).length;
    const tail = lexMarkdown(source.slice(this.keptLength), this.links);
    if (this.kept > 0 && Object.keys(tail.links).length > known) this.linksLate = true;
    this.links = tail.links;
    this.tokens.length = this.kept;
    for (const token of tail) this.tokens.push(token);
    this.source = source;
    if (this.keptLength + rawLength(tail) !== source.length) return this.relex(source);
    this.keep();
    return this.tokens;
  }

  private relex(source: string): readonly Token[] {
    const tokens = lexMarkdown(source);
    this.links = tokens.links;
    this.tokens = [...tokens];
    this.source = source;
    this.linksLate = false;
    this.kept = 0;
    this.keptLength = 0;
    this.keep();
    return this.tokens;
  }

  /**
   * Moves the kept mark to all but the last block and the blank lines after it: a list or a
   * paragraph can still continue past a blank line, and a paragraph can become a table or a
   * setext heading.
   */
  private keep(): void {
    let end = this.tokens.length;
    while (end > 0 && this.tokens[end - 1]!.type === 'space') end -= 1;
    const kept = Math.max(this.kept, end - 1);
    for (let index = this.kept; index < kept; index++) this.keptLength += this.tokens[index]!.raw.length;
    this.kept = kept;
  }
}

function rawLength(tokens: Token[]): number {
  let length = 0;
  for (const token of tokens) length += token.raw.length;
  return length;
}
