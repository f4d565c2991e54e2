import type { Tokens } from 'marked';
import { describe, expect, it } from 'vitest';
import { lexBlocks, lexInlines, lexMarkdown, type Token } from './lex-markdown.ts';
import type { MathToken } from './math-extension.ts';

function find(tokens: readonly Token[], type: string): Token[] {
  const found: Token[] = [];
  const walk = (list: readonly Token[] | undefined) => {
    for (const token of list ?? []) {
      if (token.type === type) found.push(token);
      walk((token as { tokens?: Token[] }).tokens);
      if (token.type === 'list') for (const entry of (token as Tokens.List).items) walk(entry.tokens);
      if (token.type === 'table') {
        const table = token as Tokens.Table;
        for (const cell of [...table.header, ...table.rows.flat()]) walk(cell.tokens);
      }
    }
  };
  walk(tokens);
  return found;
}

describe('lexMarkdown', () => {
  it('reads task lists with their state', () => {
    const [list] = find(
      lexMarkdown('- [ ] write tests\n- [x] read the issue\n- plain'),
      'list',
    ) as Tokens.List[];
    expect(list!.items.map((item) => [item.task, item.checked])).toEqual([
      [true, false],
      [true, true],
      [false, undefined],
    ]);
  });

  it('resolves reference links, wherever the definition stands', () => {
    const [link] = find(
      lexMarkdown('See [the docs][docs].\n\n[docs]: https://example.com/docs "Docs"'),
      'link',
    );
    expect(link).toMatchObject({ href: 'https://example.com/docs', title: 'Docs', text: 'the docs' });
  });

  it('takes links known from earlier text', () => {
    const [link] = find(
      lexMarkdown('Again [the docs][docs].', { docs: { href: 'https://e.com', title: null } }),
      'link',
    );
    expect(link).toMatchObject({ href: 'https://e.com' });
  });

  it('reads inline and display math in both notations', () => {
    const math = find(
      lexMarkdown('Euler: $e^{i\\pi} + 1 = 0$ and \\(a^2\\).\n\n$$\n\\int_0^1 x\\,dx\n$$\n\n\\[ x = 1 \\]\n'),
      'math',
    ) as MathToken[];
    expect(math.map(({ tex, display }) => [tex, display])).toEqual([
      ['e^{i\\pi} + 1 = 0', false],
      ['a^2', false],
      ['\\int_0^1 x\\,dx', true],
      ['x = 1', true],
    ]);
  });

  it('leaves prices and unclosed formulas as text', () => {
    expect(find(lexMarkdown('It costs $5 and $10 today.'), 'math')).toEqual([]);
    expect(find(lexMarkdown('Streaming $$\\sum_i'), 'math')).toEqual([]);
    expect(find(lexMarkdown('`$x$` is code'), 'math')).toEqual([]);
  });

  it('keeps raw HTML as tokens of its own, which the view shows as text', () => {
    const tokens = lexMarkdown('<script>alert(1)</script>\n\nHi <img src=x onerror=alert(1)>');
    expect(tokens[0]).toMatchObject({ type: 'html', text: '<script>alert(1)</script>' });
    expect(find(tokens, 'html').map((token) => token.raw)).toContain('<img src=x onerror=alert(1)>');
  });

  it('shows text nested past what the lexer can recurse into as written', () => {
    const source = `${'> '.repeat(20_000)}deep`;
    const tokens = lexMarkdown(source);
    expect(tokens.map((token) => token.raw).join('')).toBe(source);
  });

  it('accounts for every character in the top-level tokens', () => {
    const source =
      '# T\n\npara\n\n- a\n- b\n\n\n| x | y |\n|---|---|\n| 1 | 2 |\n\n```js\nlet a;\n```\n> q\n\n$$\na\n$$\ntail';
    expect(
      lexMarkdown(source)
        .map((token) => token.raw)
        .join(''),
    ).toBe(source);
  });
});

describe('deeply nested emphasis', () => {
  const rawOf = (tokens: readonly Token[]): string => tokens.map((token) => token.raw).join('');

  it('is lexed in pieces that keep every character, so its cost stays linear', () => {
    for (const source of [
      `**Bold** first. ${'*_a '.repeat(25_000)}`.trimEnd(),
      `**Bold** first. ${'*'.repeat(5000)}x${'*'.repeat(5000)}`,
    ]) {
      const [paragraph] = lexMarkdown(source) as Tokens.Paragraph[];
      expect(rawOf(paragraph!.tokens)).toBe(source);
      // Emphasis inside a piece is still read as emphasis.
      expect(paragraph!.tokens[0]).toMatchObject({ type: 'strong', text: 'Bold' });
    }
  });

  it('leaves long text with a few delimiters whole: emphasis may span more than a piece', () => {
    const words = 'word '.repeat(600);
    const [paragraph] = lexMarkdown(`Start **${words}end** and _more_.`) as Tokens.Paragraph[];
    expect(paragraph!.tokens.map((token) => token.type)).toEqual(['text', 'strong', 'text', 'em', 'text']);
  });
});

describe('lexBlocks and lexInlines', () => {
  const source =
    'Intro with [a reference][r] and **bold**.\n\n| a | b |\n|---|---|\n| *x* | [r] |\n\n- item `code`\n  > quoted _text_\n\n[r]: https://example.com/r\n';

  it('leaves the inside of blocks for lexInlines, which gives what one whole lex gives', () => {
    const blocks = lexBlocks(source);
    expect(find(blocks, 'link')).toEqual([]);
    expect(find(blocks, 'strong')).toEqual([]);
    // Drawn in any order, later blocks first (as a long reply is), with definitions found anywhere.
    for (const block of [...blocks].reverse()) lexInlines(block);
    expect(JSON.stringify(blocks)).toBe(JSON.stringify(lexMarkdown(source)));
    expect(find(blocks, 'link').map((link) => (link as Tokens.Link).href)).toEqual([
      'https://example.com/r',
      'https://example.com/r',
    ]);
    expect(find(blocks, 'em')).toHaveLength(2);
  });

  it("makes a block's inline tokens once", () => {
    const [paragraph] = lexBlocks('Some **bold** text.') as Tokens.Paragraph[];
    const inside = lexInlines(paragraph!).tokens;
    const first = inside[1];
    expect(first).toMatchObject({ type: 'strong' });
    expect(lexInlines(paragraph!).tokens[1]).toBe(first);
    expect(paragraph!.tokens).toHaveLength(3);
  });
});
