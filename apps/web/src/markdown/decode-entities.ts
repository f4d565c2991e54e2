const named: Record<string, string> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: '\u00a0',
  copy: '©',
  reg: '®',
  trade: '™',
  hellip: '…',
  mdash: '—',
  ndash: '–',
  lsquo: '‘',
  rsquo: '’',
  ldquo: '“',
  rdquo: '”',
  times: '×',
  divide: '÷',
  deg: '°',
  middot: '·',
  bull: '•',
  larr: '←',
  rarr: '→',
  euro: '€',
};

const entity = /&(?:#(\d{1,7})|#[xX]([\da-fA-F]{1,6})|([a-zA-Z]{2,8}));/g;

/**
 * Character references in Markdown text (`&amp;`, `&#169;`, `&#x2192;`), decoded to the
 * characters they name so the text node shows what an HTML renderer would. Unknown names stay as
 * written; the result only ever becomes a text node.
 */
export function decodeEntities(text: string): string {
  if (!text.includes('&')) return text;
  return text.replace(entity, (whole, decimal?: string, hex?: string, name?: string) => {
    if (name !== undefined) return named[name] ?? whole;
    const code = decimal !== undefined ? Number.parseInt(decimal, 10) : Number.parseInt(hex!, 16);
    if (code === 0 || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) return '\ufffd';
    return String.fromCodePoint(code);
  });
}
