import { describe, expect, it } from 'vitest';
import { hasBalancedFences } from './has-balanced-fences.ts';

describe('hasBalancedFences', () => {
  it('accepts text without fences and closed fences', () => {
    expect(hasBalancedFences('')).toBe(true);
    expect(hasBalancedFences('plain `inline` text')).toBe(true);
    expect(hasBalancedFences('```ts\ncode\n```')).toBe(true);
    expect(hasBalancedFences('~~~\na\n~~~\n\n```\nb\n```\n')).toBe(true);
  });

  it('rejects an unclosed fence', () => {
    expect(hasBalancedFences('```ts\ncode')).toBe(false);
    expect(hasBalancedFences('```\na\n```\n```\nb')).toBe(false);
  });

  it('needs the same character, at least as long, and no info string to close', () => {
    expect(hasBalancedFences('````\n```\n````')).toBe(true);
    expect(hasBalancedFences('````\n```\n')).toBe(false);
    expect(hasBalancedFences('~~~\n```\n')).toBe(false);
    expect(hasBalancedFences('```\n``` not a closer\n')).toBe(false);
  });

  it('does not treat inline triple backticks or backtick info strings as fences', () => {
    expect(hasBalancedFences('use ``` to start a block')).toBe(true);
    expect(hasBalancedFences('```a`b')).toBe(true);
  });

  it('accepts indented fences inside list items and CRLF line endings', () => {
    expect(hasBalancedFences('1. step\n    ```sh\n    ls\n    ```')).toBe(true);
    expect(hasBalancedFences('```\r\ncode\r\n```\r\n')).toBe(true);
  });
});
