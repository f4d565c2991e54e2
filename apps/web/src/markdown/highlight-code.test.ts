import { describe, expect, it } from 'vitest';
import { highlightCode } from './highlight-code.ts';

describe('highlightCode', () => {
  it('colours keywords, strings, numbers, literals and comments, and loses no character', () => {
    const code = 'const x = "a\\"b" + 42; // note\nif (true) return null;';
    const tokens = highlightCode(code, 'ts');
    expect(tokens.map((token) => token.text).join('')).toBe(code);
    const kinds = Object.fromEntries(tokens.filter((t) => t.kind !== 'plain').map((t) => [t.text, t.kind]));
    expect(kinds).toMatchObject({
      const: 'keyword',
      '"a\\"b"': 'string',
      '42': 'number',
      '// note': 'comment',
      if: 'keyword',
      true: 'literal',
    });
  });

  it('treats # as a comment only in languages where it is one', () => {
    expect(highlightCode('x = 1  # why', 'python').at(-1)).toEqual({ kind: 'comment', text: '# why' });
    expect(highlightCode('#include <x>', 'c').some((token) => token.kind === 'comment')).toBe(false);
  });
});
