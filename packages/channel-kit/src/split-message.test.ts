import { describe, expect, it } from 'vitest';
import { parseFenceLines } from './fence-lines.ts';
import { hasBalancedFences } from './has-balanced-fences.ts';
import { renderTelegramHtml } from './render-telegram-html.ts';
import { splitMessage } from './split-message.ts';
import { randomMarkdown, seededRandom } from './testing/random-markdown.ts';

const utf8Bytes = (chunk: string): number => Buffer.byteLength(chunk, 'utf8');
const telegramHtmlLength = (chunk: string): number => renderTelegramHtml(chunk).length;
const measures = [undefined, utf8Bytes, telegramHtmlLength];

/** Non-space content outside fence delimiter lines, to compare input and output. */
function content(text: string): string {
  return parseFenceLines(text)
    .filter((line) => line.role !== 'open' && line.role !== 'close')
    .map((line) => text.slice(line.start, line.end))
    .join('')
    .replace(/\s+/g, '');
}

describe('splitMessage', () => {
  it('returns short text as one chunk and blank text as none', () => {
    expect(splitMessage('Hello **there**', { maxLength: 100 })).toEqual(['Hello **there**']);
    expect(splitMessage('', { maxLength: 100 })).toEqual([]);
    expect(splitMessage(' \n\n ', { maxLength: 100 })).toEqual([]);
  });

  it('prefers paragraph breaks over line breaks', () => {
    const text = 'First paragraph line one.\nline two.\n\nSecond paragraph.';
    expect(splitMessage(text, { maxLength: 45 })).toEqual([
      'First paragraph line one.\nline two.',
      'Second paragraph.',
    ]);
  });

  it('falls back to line, then sentence, then word boundaries', () => {
    expect(splitMessage('alpha beta\ngamma delta', { maxLength: 15 })).toEqual(['alpha beta', 'gamma delta']);
    expect(splitMessage('One two three. Four five six seven', { maxLength: 25 })).toEqual([
      'One two three.',
      'Four five six seven',
    ]);
    expect(splitMessage('one two three four five', { maxLength: 10 })).toEqual([
      'one two',
      'three four',
      'five',
    ]);
  });

  it('hard-cuts a word longer than the limit without splitting surrogate pairs', () => {
    const chunks = splitMessage(`${'a'.repeat(9)}😀😀😀`, { maxLength: 10 });
    expect(chunks).toEqual(['aaaaaaaaa', '😀😀😀']);
    expect(splitMessage('😀😀😀', { maxLength: 3 })).toEqual(['😀', '😀', '😀']);
  });

  it('closes a cut code fence and reopens it with the same info string', () => {
    const code = Array.from({ length: 6 }, (_, index) => `line${index}();`).join('\n');
    const chunks = splitMessage(`Look:\n\n\`\`\`ts\n${code}\n\`\`\`\n\nDone.`, { maxLength: 40 });
    expect(chunks).toEqual([
      'Look:',
      '```ts\nline0();\nline1();\nline2();\n```',
      '```ts\nline3();\nline4();\nline5();\n```',
      'Done.',
    ]);
  });

  it('keeps tilde and long fences with their own closing marker', () => {
    const text = `~~~~ python\n${'print(1)\n'.repeat(8)}~~~~`;
    const chunks = splitMessage(text, { maxLength: 50 });
    expect(chunks.length).toBeGreaterThan(1);
    for (const chunk of chunks) {
      expect(chunk.startsWith('~~~~ python\n')).toBe(true);
      expect(chunk.endsWith('\n~~~~')).toBe(true);
    }
  });

  it('treats inner ``` lines of a ```` fence as code', () => {
    const text = `\`\`\`\`md\n\`\`\`js\n${'x();\n'.repeat(10)}\`\`\`\n\`\`\`\``;
    const chunks = splitMessage(text, { maxLength: 40 });
    for (const chunk of chunks) {
      expect(chunk.startsWith('````md\n')).toBe(true);
      expect(hasBalancedFences(chunk)).toBe(true);
    }
    expect(content(chunks.join('\n'))).toBe(content(text));
  });

  it('still fits and balances when a fence line itself is longer than the limit', () => {
    const text = `~~~${'info '.repeat(30)}\ncode line\n~~~\n\nAfter.`;
    const chunks = splitMessage(text, { maxLength: 40 });
    for (const chunk of chunks) {
      expect(chunk.length).toBeLessThanOrEqual(40);
      expect(hasBalancedFences(chunk)).toBe(true);
    }
    expect(chunks.at(-1)).toBe('After.');
  });

  it('closes a fence the input left open', () => {
    expect(splitMessage('```\nunfinished', { maxLength: 100 })).toEqual(['```\nunfinished\n```']);
  });

  it('never starts a chunk with a fence-like run taken from mid-line', () => {
    const text = 'Type ``` then the language name, and ~~~ works too. '.repeat(3);
    for (const maxLength of [8, 12, 20, 30]) {
      for (const chunk of splitMessage(text, { maxLength })) {
        expect(hasBalancedFences(chunk)).toBe(true);
        expect(chunk.length).toBeLessThanOrEqual(maxLength);
      }
    }
  });

  it('measures with a custom measure (UTF-8 bytes)', () => {
    const text = 'ééééé ééééé ééééé';
    const chunks = splitMessage(text, { maxLength: 12, measure: utf8Bytes });
    expect(chunks).toEqual(['ééééé', 'ééééé', 'ééééé']);
  });

  it('normalises CRLF line endings', () => {
    expect(splitMessage('one\r\n\r\ntwo', { maxLength: 4 })).toEqual(['one', 'two']);
  });

  it('fills chunks close to the limit when only word breaks are available', () => {
    const random = seededRandom(11);
    const words = Array.from({ length: 3000 }, () => 'abcdefghij'.slice(0, 1 + Math.floor(random() * 10)));
    const text = words.join(' ');
    for (const measure of measures) {
      const chunks = splitMessage(text, { maxLength: 500, measure });
      for (const chunk of chunks.slice(0, -1)) {
        expect((measure ?? ((value: string) => value.length))(chunk)).toBeGreaterThan(480);
      }
      expect(chunks.join(' ')).toBe(text);
    }
  });

  it('rejects a limit that cannot hold anything', () => {
    expect(() => splitMessage('abc', { maxLength: 0 })).toThrow(RangeError);
    expect(() => splitMessage('😀', { maxLength: 1 })).toThrow(RangeError);
  });

  it('property: random Markdown splits into fitting, balanced chunks that keep all content', () => {
    for (let seed = 1; seed <= 300; seed += 1) {
      const random = seededRandom(seed);
      const text = randomMarkdown(random);
      const measure = measures[seed % measures.length];
      // Rendered HTML adds up to ~50 characters of <pre><code class=…> around a code chunk.
      const maxLength = (measure === telegramHtmlLength ? 100 : 30) + Math.floor(random() * 500);
      const chunks = splitMessage(text, { maxLength, measure });
      const context = { seed, maxLength };
      for (const chunk of chunks) {
        expect({
          ...context,
          length: (measure ?? ((value: string) => value.length))(chunk) <= maxLength,
        }).toEqual({ ...context, length: true });
        expect({ ...context, balanced: hasBalancedFences(chunk) }).toEqual({ ...context, balanced: true });
        expect(chunk.trim()).not.toBe('');
      }
      expect({ ...context, content: content(chunks.join('\n')) }).toEqual({
        ...context,
        content: content(text),
      });
    }
  });
});
