import { describe, expect, it } from 'vitest';
import { renderTelegramHtml } from './render-telegram-html.ts';
import { randomMarkdown, seededRandom } from './testing/random-markdown.ts';

const TAG = /<(\/?)(b|i|s|u|code|pre|a|blockquote)((?: href="[^"<>]*"| class="language-[\w#+.-]+")?)>/g;

/** Checks what Telegram's parser checks: only known tags, properly nested, all entities valid. */
function assertTelegramSafe(html: string): void {
  const stack: string[] = [];
  for (const match of html.matchAll(TAG)) {
    const [, closing, name = ''] = match;
    if (closing) expect(stack.pop()).toBe(name);
    else stack.push(name);
  }
  expect(stack).toEqual([]);
  const text = html.replace(TAG, '');
  expect(text).not.toMatch(/[<>]/);
  expect(text.replace(/&(amp|lt|gt|quot);/g, '')).not.toContain('&');
}

describe('renderTelegramHtml', () => {
  it('renders inline formatting with the supported tags', () => {
    expect(renderTelegramHtml('**bold**, *it*, _it_, ~~gone~~ and `x`')).toBe(
      '<b>bold</b>, <i>it</i>, <i>it</i>, <s>gone</s> and <code>x</code>',
    );
    expect(renderTelegramHtml('***both***')).toBe('<b><i>both</i></b>');
  });

  it('escapes <, > and & everywhere, code included', () => {
    expect(renderTelegramHtml('a < b && c > d <script>')).toBe('a &lt; b &amp;&amp; c &gt; d &lt;script&gt;');
    expect(renderTelegramHtml('`if (a<b) {}` and &lt;')).toBe('<code>if (a&lt;b) {}</code> and &amp;lt;');
    expect(renderTelegramHtml('```html\n<p class="x">&nbsp;</p>\n```')).toBe(
      '<pre><code class="language-html">&lt;p class="x"&gt;&amp;nbsp;&lt;/p&gt;</code></pre>',
    );
  });

  it('renders a code block without a usable language as plain pre', () => {
    expect(renderTelegramHtml('```\nplain\n```')).toBe('<pre>plain</pre>');
    expect(renderTelegramHtml('```"><script>\nx\n```')).toBe('<pre>x</pre>');
  });

  it('only links http(s) URLs and escapes the href', () => {
    expect(renderTelegramHtml('[site](https://example.com/?a=1&b="2")')).toBe(
      '<a href="https://example.com/?a=1&amp;b=&quot;2&quot;">site</a>',
    );
    expect(renderTelegramHtml('[click](javascript:alert(1))')).toBe('click (javascript:alert(1))');
    expect(renderTelegramHtml('[x](tg://user?id=1)')).toBe('x (tg://user?id=1)');
    expect(renderTelegramHtml('[`npm i` **now**](https://npmjs.com)')).toBe(
      '<a href="https://npmjs.com">npm i <b>now</b></a>',
    );
    expect(renderTelegramHtml('<https://example.com>')).toBe(
      '<a href="https://example.com">https://example.com</a>',
    );
  });

  it('renders headings bold, lists with bullets and quotes as blockquote', () => {
    expect(renderTelegramHtml('## Plan **now**\n- one\n* two\n2. three')).toBe(
      '<b>Plan now</b>\n• one\n• two\n2. three',
    );
    expect(renderTelegramHtml('> first\n> > nested **b**')).toBe(
      '<blockquote>first\nnested <b>b</b></blockquote>',
    );
  });

  it('keeps unclosed or unknown constructs as escaped text', () => {
    expect(renderTelegramHtml('**not closed and <b>')).toBe('**not closed and &lt;b&gt;');
    expect(renderTelegramHtml('snake_case_name and 5 * 3')).toBe('snake_case_name and 5 * 3');
    expect(renderTelegramHtml('| a | b |\n|---|---|')).toBe('| a | b |\n|---|---|');
    expect(renderTelegramHtml('\\*literal\\*')).toBe('*literal*');
  });

  it('closes a code block that is still streaming', () => {
    expect(renderTelegramHtml('Look:\n```py\nprint(1 < 2)')).toBe(
      'Look:\n<pre><code class="language-py">print(1 &lt; 2)</code></pre>',
    );
  });

  it('property: random Markdown never yields unescaped < or badly nested tags', () => {
    for (let seed = 1; seed <= 400; seed += 1) {
      const markdown = randomMarkdown(seededRandom(seed));
      const html = renderTelegramHtml(markdown);
      try {
        assertTelegramSafe(html);
      } catch (error) {
        throw new Error(`seed ${seed}: ${String(error)}\n${html}`);
      }
    }
  });

  it('property: hostile delimiter soup stays safe', () => {
    const random = seededRandom(7);
    const pieces = [
      '*',
      '**',
      '_',
      '__',
      '~~',
      '`',
      '[',
      ']',
      '(',
      ')',
      '<',
      '>',
      '&',
      'a',
      ' ',
      '\n',
      '> ',
      '```',
    ];
    for (let round = 0; round < 300; round += 1) {
      const length = 1 + Math.floor(random() * 80);
      const markdown = Array.from({ length }, () => pieces[Math.floor(random() * pieces.length)]).join('');
      assertTelegramSafe(renderTelegramHtml(markdown));
    }
  });
});
