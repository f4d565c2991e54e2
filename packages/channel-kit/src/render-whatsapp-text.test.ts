import { describe, expect, it } from 'vitest';
import { renderWhatsAppText } from './render-whatsapp-text.ts';

describe('renderWhatsAppText', () => {
  it('maps emphasis to WhatsApp markers', () => {
    expect(renderWhatsAppText('**bold** __also__ *it* _it_ ~~gone~~ `code`')).toBe(
      '*bold* *also* _it_ _it_ ~gone~ `code`',
    );
    expect(renderWhatsAppText('***both***')).toBe('*_both_*');
  });

  it('turns headings into a bold line without doubled markers', () => {
    expect(renderWhatsAppText('# Title with **bold**')).toBe('*Title with bold*');
  });

  it('keeps code fences as plain ``` blocks and leaves their content alone', () => {
    expect(renderWhatsAppText('```ts\nconst a = **b**;\n```')).toBe('```\nconst a = **b**;\n```');
  });

  it('writes links as text (url)', () => {
    expect(renderWhatsAppText('[docs](https://example.com/docs)')).toBe('docs (https://example.com/docs)');
    expect(renderWhatsAppText('<https://example.com>')).toBe('https://example.com');
    expect(renderWhatsAppText('[https://a.b](https://a.b)')).toBe('https://a.b');
  });

  it('renders lists and quotes', () => {
    expect(renderWhatsAppText('- one\n* two\n1. three\n> said **this**')).toBe(
      '• one\n• two\n1. three\n> said *this*',
    );
  });

  it('leaves unmatched markers and plain text as they are', () => {
    expect(renderWhatsAppText('5 * 3 = 15, snake_case, **open')).toBe('5 * 3 = 15, snake_case, **open');
  });
});
