import { describe, expect, it } from 'vitest';
import { takeTokenFromLocation } from './token-from-location.ts';

function fakeHistory() {
  const urls: string[] = [];
  return {
    urls,
    replaceState: (_state: unknown, _unused: string, url?: string | URL | null) => urls.push(String(url)),
  };
}

describe('takeTokenFromLocation', () => {
  it('returns the token and removes the hash from the address bar', () => {
    const history = fakeHistory();
    const token = takeTokenFromLocation({ hash: '#token=abc-123', pathname: '/', search: '?x=1' }, history);
    expect(token).toBe('abc-123');
    expect(history.urls).toEqual(['/?x=1']);
  });

  it('leaves the address alone when there is no token', () => {
    const history = fakeHistory();
    expect(takeTokenFromLocation({ hash: '', pathname: '/', search: '' }, history)).toBeUndefined();
    expect(takeTokenFromLocation({ hash: '#section', pathname: '/', search: '' }, history)).toBeUndefined();
    expect(takeTokenFromLocation({ hash: '#token=', pathname: '/', search: '' }, history)).toBeUndefined();
    expect(history.urls).toEqual([]);
  });
});
