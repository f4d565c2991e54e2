import { describe, expect, it } from 'vitest';
import { IncrementalMarkdown } from './incremental-markdown.ts';
import { lexMarkdown } from './lex-markdown.ts';

const documents = [
  '# Title\n\nA paragraph with **bold**,\na second line and `code`.\n\n- one\n- two\n\n  still two\n- three\n\n1. first\n2. second\n',
  'Head | Other\n--- | ---\n1 | 2\n3 | 4\n\nAfter the table.\nSetext\n======\n\n> quoted\n> lines\n\nend',
  '```python\ndef f():\n    return 1\n```\n\nText $x^2$ and\n\n$$\n\\frac{a}{b}\n$$\n\n- [ ] task\n- [x] done\n\n***\n',
  'Use [the guide][g] and [the docs][d].\n\n[g]: https://example.com/g\n\nMore.\n\n[d]: https://example.com/d\n',
];

function streamed(document: string, size: number) {
  const markdown = new IncrementalMarkdown();
  for (let end = size; end < document.length; end += size) markdown.update(document.slice(0, end));
  return markdown.update(document, true);
}

describe('IncrementalMarkdown', () => {
  it('ends with the tokens a single parse gives, however the reply was cut', () => {
    for (const document of documents)
      for (const size of [1, 3, 7, 40])
        expect(JSON.stringify(streamed(document, size)), `chunks of ${size}`).toBe(
          JSON.stringify([...lexMarkdown(document)]),
        );
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
    expect(JSON.stringify(markdown.update('Something else'))).toBe(
      JSON.stringify([...lexMarkdown('Something else')]),
    );
  });
});
