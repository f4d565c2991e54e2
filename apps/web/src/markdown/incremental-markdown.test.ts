import { describe, expect, it } from 'vitest';
import { IncrementalMarkdown } from './incremental-markdown.ts';
import { lexInlines, lexMarkdown, type Token } from './lex-markdown.ts';

const documents = [
  '# Title\n\nA paragraph with **bold**,\na second line and `code`.\n\n- one\n- two\n\n  still two\n- three\n\n1. first\n2. second\n',
  'Head | Other\n--- | ---\n1 | 2\n3 | 4\n\nAfter the table.\nSetext\n======\n\n> quoted\n> lines\n\nend',
  '```python\ndef f():\n    return 1\n```\n\nText $x^2$ and\n\n$$\n\\frac{a}{b}\n$$\n\n- [ ] task\n- [x] done\n\n***\n',
  'Use [the guide][g] and [the docs][d].\n\n[g]: https://example.com/g\n\nMore.\n\n[d]: https://example.com/d\n',
  'Windows\r\nline ends\r\n\r\n- a\r\n- b\r\n\r\nand a lone\rreturn\r\n',
];

/** The tokens as the view draws them: inline tokens are made when a block is drawn. */
function drawn(tokens: readonly Token[]): string {
  return JSON.stringify(tokens.map((token) => lexInlines(token)));
}

/** Streams `document` in chunks of `size`; `final` is false to see the tokens as they stood. */
function streamed(document: string, size: number, final = true) {
  const markdown = new IncrementalMarkdown();
  for (let end = size; end < document.length; end += size) markdown.update(document.slice(0, end));
  return markdown.update(document, final);
}

describe('IncrementalMarkdown', () => {
  it('ends with the tokens a single parse gives, however the reply was cut', () => {
    for (const document of documents)
      for (const size of [1, 3, 7, 40])
        expect(drawn(streamed(document, size)), `chunks of ${size}`).toBe(
          JSON.stringify([...lexMarkdown(document.replace(/\r\n?/g, '\n'))]),
        );
  });

  it('matches a single parse before the end too, line endings included', () => {
    for (const document of documents.slice(0, 3).concat(documents.slice(4)))
      for (const size of [1, 5])
        expect(drawn(streamed(document, size, false)), `chunks of ${size}`).toBe(
          JSON.stringify([...lexMarkdown(document.replace(/\r\n?/g, '\n'))]),
        );
  });

  it('shows all of one huge open block while it streams, lexing it again only as it grows', () => {
    const paragraph = 'word '.repeat(5000);
    const markdown = new IncrementalMarkdown();
    let unparsedSteps = 0;
    for (let end = 50; end < paragraph.length; end += 50) {
      const tokens = markdown.update(paragraph.slice(0, end));
      expect(tokens.map((token) => token.raw).join('')).toBe(paragraph.slice(0, end));
      if (tokens.at(-1)?.type === 'unparsed') unparsedSteps += 1;
    }
    expect(unparsedSteps).toBeGreaterThan(0);
    expect(drawn(markdown.update(paragraph, true))).toBe(JSON.stringify([...lexMarkdown(paragraph)]));
  });

  it('reuses the tokens of finished blocks', () => {
    const markdown = new IncrementalMarkdown();
    const first = [...markdown.update('# Title\n\nOne paragraph.\n\nAnother')];
    const second = markdown.update('# Title\n\nOne paragraph.\n\nAnother one, longer.\n\n- a');
    expect(second[0]).toBe(first[0]);
    expect(second[2]).toBe(first[2]);
    expect(second.at(-1)).toMatchObject({ type: 'list' });
  });

  it('starts over when the text is not a continuation', () => {
    const markdown = new IncrementalMarkdown();
    markdown.update('First reply\n\nwith two blocks');
    expect(drawn(markdown.update('Something else'))).toBe(JSON.stringify([...lexMarkdown('Something else')]));
  });

  it('keeps the finished blocks when the reply ends, also inside a huge open block', () => {
    const text = `# Title\n\nOne paragraph.\n\n${'word '.repeat(5000)}`;
    const markdown = new IncrementalMarkdown();
    for (let end = 100; end < text.length; end += 100) markdown.update(text.slice(0, end));
    const streamed = [...markdown.update(text)];
    expect(streamed.at(-1)?.type).toBe('unparsed');
    const final = markdown.update(text, true);
    expect(final[0]).toBe(streamed[0]);
    expect(final[2]).toBe(streamed[2]);
    // Only the first chunk was lexed from the start of the text.
    expect(markdown.relexes).toBe(1);
    expect(drawn(final)).toBe(JSON.stringify([...lexMarkdown(text)]));
  });

  it('lexes the whole reply again at its end when a definition came after its use', () => {
    const text = 'See [the guide][g].\n\nMore text.\n\n[g]: https://example.com/g\n';
    const markdown = new IncrementalMarkdown();
    for (let end = 5; end < text.length; end += 5) markdown.update(text.slice(0, end));
    const relexes = markdown.relexes;
    const final = markdown.update(text, true);
    expect(markdown.relexes).toBe(relexes + 1);
    expect(drawn(final)).toBe(JSON.stringify([...lexMarkdown(text)]));
  });
});
