import { type LinkDefinitions, lexBlocks, type Token } from './lex-markdown.ts';

/**
 * The tokens of a reply that grows while it streams. Blocks before the last one are finished:
 * their tokens (the same objects, so their elements are kept) are reused, and only the text from
 * the last block on is lexed again. A chunk costs the length of the last block, not of the reply.
 * Only blocks are lexed here: a block's inline tokens are made when it is drawn (`lexInlines`).
 */
export class IncrementalMarkdown {
  /** The text as given, and as lexed (line endings normalised to \n). */
  private raw = '';
  private source = '';
  private tokens: Token[] = [];
  /** Tokens at the start of `tokens` that appended text cannot change, and their length. */
  private kept = 0;
  private keptLength = 0;
  private links: LinkDefinitions = Object.create(null);
  /** Whether a reference definition arrived after text that may use it was lexed. */
  private linksLate = false;
  /** How much of `source` the tokens come from, and how many tokens that lex gave. */
  private lexedLength = 0;
  private lexedCount = 0;

  /** How many times the whole text was lexed from its start (a new text, or late definitions). */
  relexes = 0;

  /**
   * Tokens of `text`. While it streams, nothing here touches the whole text but a copy of the new
   * part: a continuation is recognised by its length and the last characters seen. `final` is the
   * complete reply: it is compared in full once and its open block is lexed; only reference
   * definitions that arrived after text that may use them make it lex the whole reply again (the
   * finished blocks' tokens, and so their elements, are otherwise kept to the end).
   */
  update(text: string, final = false): readonly Token[] {
    const previous = this.raw;
    if (final && this.linksLate) return this.relex(text);
    const same = text.length === previous.length && text === previous;
    if (same && (!final || this.lexedLength === this.source.length)) return this.tokens;
    const continued = final ? text.startsWith(previous) : continues(text, previous);
    if (previous === '' || text.length < previous.length || !continued) return this.relex(text);
    let added = text.slice(previous.length);
    // A \r\n split between two chunks: the \r already became a line end.
    if (previous.endsWith('\r') && added.startsWith('\n')) added = added.slice(1);
    const source = this.source + normalised(added);
    // One huge open block (a 100 KB paragraph) would be lexed whole on every chunk: past 8 KB it
    // is lexed again only after growing by a tenth, which keeps the total work linear. Meanwhile
    // the new text shows as written.
    const open = source.length - this.keptLength;
    if (!final && open > 8192 && (source.length - this.lexedLength) * 10 < open) {
      this.tokens.length = this.lexedCount;
      const waiting = source.slice(this.lexedLength);
      this.tokens.push({ type: 'unparsed', raw: waiting, text: waiting });
      this.raw = text;
      this.source = source;
      return this.tokens;
    }
    const known = Object.keys(this.links).length;
    const tail = lexBlocks(source.slice(this.keptLength), this.links);
    if (this.kept > 0 && Object.keys(tail.links).length > known) this.linksLate = true;
    this.links = tail.links;
    this.tokens.length = this.kept;
    for (const token of tail) this.tokens.push(token);
    this.raw = text;
    this.source = source;
    this.lexedLength = source.length;
    this.lexedCount = this.tokens.length;
    if (this.keptLength + rawLength(tail) !== source.length || (final && this.linksLate))
      return this.relex(text);
    this.keep();
    return this.tokens;
  }

  private relex(text: string): readonly Token[] {
    const source = normalised(text);
    const tokens = lexBlocks(source);
    this.links = tokens.links;
    this.tokens = [...tokens];
    this.raw = text;
    this.source = source;
    this.lexedLength = source.length;
    this.lexedCount = this.tokens.length;
    this.linksLate = false;
    this.relexes += 1;
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

/** Whether `text` extends `previous`, judged by its last characters (the text only grows). */
function continues(text: string, previous: string): boolean {
  const from = Math.max(0, previous.length - 32);
  return text.startsWith(previous.slice(from), from);
}

function normalised(text: string): string {
  return text.includes('\r') ? text.replace(/\r\n?/g, '\n') : text;
}

function rawLength(tokens: Token[]): number {
  let length = 0;
  for (const token of tokens) length += token.raw.length;
  return length;
}
