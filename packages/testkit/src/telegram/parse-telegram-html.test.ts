import { describe, expect, it } from 'vitest';
import { detectEntities } from './detect-entities.ts';
import { parseTelegramHtml } from './parse-telegram-html.ts';

describe('parseTelegramHtml', () => {
  it('returns the visible text of well-formed HTML', () => {
    const parsed = parseTelegramHtml(
      '<b>bold</b> &lt;tag&gt; &amp; <pre><code class="language-ts">a &lt; b</code></pre>',
    );
    expect(parsed).toEqual({
      ok: true,
      value: { text: 'bold <tag> & a < b', tags: ['b', 'pre', 'code'] },
    });
  });

  it.each([
    ['a < b', 'start tag'],
    ['<b>a</b> < b', 'start tag'],
    ['x > y', 'Character ">" is reserved'],
    ['fish & chips', 'Character "&" is reserved'],
    ['<b>open', "Can't find end tag"],
    ['<b><i>x</b></i>', 'Unmatched end tag'],
    ['<script>x</script>', 'Unsupported start tag "script"'],
  ])('rejects %j like Telegram does', (html, reason) => {
    const parsed = parseTelegramHtml(html);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) {
      expect(parsed.description).toMatch(/^Bad Request: can't parse entities: /);
      expect(parsed.description).toContain(reason);
    }
  });

  it('decodes numeric entities', () => {
    expect(parseTelegramHtml('&#65;&#x42;')).toEqual({ ok: true, value: { text: 'AB', tags: [] } });
  });
});

describe('detectEntities', () => {
  it('finds mentions, commands and URLs with UTF-16 offsets', () => {
    const text = '😀 @nexus_test_bot /start@nexus_test_bot see https://example.com';
    const entities = detectEntities(text);
    expect(
      entities.map((entity) => [entity.type, text.slice(entity.offset, entity.offset + entity.length)]),
    ).toEqual([
      ['mention', '@nexus_test_bot'],
      ['bot_command', '/start@nexus_test_bot'],
      ['url', 'https://example.com'],
    ]);
  });
});
