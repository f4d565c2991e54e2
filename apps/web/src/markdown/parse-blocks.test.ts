import { describe, expect, it } from 'vitest';
import { parseBlocks } from './parse-blocks.ts';

describe('parseBlocks', () => {
  it('parses headings, paragraphs, lists, quotes and rules', () => {
    const blocks = parseBlocks(
      '# Title\n\nline one\nline two\n\n- one\n- two\n  - nested\n\n> quoted\n\n---',
    );
    expect(blocks.map((block) => block.kind)).toEqual(['heading', 'paragraph', 'list', 'quote', 'rule']);
    const list = blocks[2];
    expect(list).toMatchObject({ kind: 'list', ordered: false });
    if (list?.kind !== 'list') throw new Error('not a list');
    expect(list.items).toHaveLength(2);
    expect(list.items[1]?.map((block) => block.kind)).toEqual(['paragraph', 'list']);
  });

  it('numbers ordered lists from their first number', () => {
    expect(parseBlocks('3. three\n4. four')).toMatchObject([{ kind: 'list', ordered: true, start: 3 }]);
  });

  it('keeps fenced code verbatim, with its language, even when it holds Markdown or HTML', () => {
    expect(parseBlocks('```TS\nconst a = "<b>" // **no**\n\n# not a heading\n```\nafter')).toEqual([
      { kind: 'code', language: 'ts', text: 'const a = "<b>" // **no**\n\n# not a heading', open: false },
      { kind: 'paragraph', content: [{ kind: 'text', text: 'after' }] },
    ]);
  });

  it('runs an unclosed fence (a reply still streaming) to the end', () => {
    expect(parseBlocks('```py\nprint(1)')).toEqual([
      { kind: 'code', language: 'py', text: 'print(1)', open: true },
    ]);
  });

  it('parses tables with alignment and escaped pipes', () => {
    const [table] = parseBlocks('| Name | Score |\n|:---|---:|\n| a \\| b | 1 |\n| c |');
    expect(table).toMatchObject({ kind: 'table', align: ['left', 'right'] });
    if (table?.kind !== 'table') throw new Error('not a table');
    expect(table.rows).toEqual([
      [[{ kind: 'text', text: 'a | b' }], [{ kind: 'text', text: '1' }]],
      [[{ kind: 'text', text: 'c' }], []],
    ]);
  });

  it('stops nesting at a fixed depth, so hostile input cannot exhaust the stack', () => {
    const blocks = parseBlocks(`${'> '.repeat(5_000)}deep`);
    expect(JSON.stringify(blocks)).toContain('deep');
  });
});
