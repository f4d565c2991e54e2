import { describe, expect, it } from 'vitest';
import { decodePathSegment, parseRequestTarget } from './parse-request-target.ts';

describe('parseRequestTarget', () => {
  it('reads origin-form targets without ever treating them as a host', () => {
    expect(parseRequestTarget('/health')?.pathname).toBe('/health');
    expect(parseRequestTarget('//')?.pathname).toBe('//');
    expect(parseRequestTarget('//x:99999/')?.pathname).toBe('//x:99999/');
    expect(parseRequestTarget('//evil.example/ws')?.pathname).toBe('//evil.example/ws');
    expect(parseRequestTarget('/ws?token=abc')?.searchParams.get('token')).toBe('abc');
  });

  it('resolves dot segments, encoded or not, so they cannot climb above the root', () => {
    expect(parseRequestTarget('/../../etc/passwd')?.pathname).toBe('/etc/passwd');
    expect(parseRequestTarget('/%2e%2e/%2e%2e/etc/passwd')?.pathname).toBe('/etc/passwd');
    expect(parseRequestTarget('/assets/.%2e/.%2e/package.json')?.pathname).toBe('/package.json');
    // An encoded slash stays encoded: it is never a path separator.
    expect(parseRequestTarget('/..%2f..%2fpackage.json')?.pathname).toBe('/..%2f..%2fpackage.json');
  });

  it('keeps only the path of the absolute form', () => {
    expect(parseRequestTarget('http://x/health')?.pathname).toBe('/health');
    expect(parseRequestTarget('HTTPS://x')?.pathname).toBe('/');
  });

  it('refuses targets no route can serve', () => {
    for (const target of [
      undefined,
      '',
      '*',
      'x',
      '127.0.0.1:22',
      'file:///etc/passwd',
      'http://[::1/',
      'https://x:65536/',
      '/..\\..\\package.json',
      '/index.html\u0000.js',
      '/a\u007fb',
    ]) {
      expect(parseRequestTarget(target), String(target)).toBeUndefined();
    }
  });
});

describe('decodePathSegment', () => {
  it('decodes valid escapes and answers undefined for malformed ones', () => {
    expect(decodePathSegment('what%20sapp')).toBe('what sapp');
    expect(decodePathSegment('%E0%A4%A')).toBeUndefined();
    expect(decodePathSegment('%')).toBeUndefined();
  });
});
