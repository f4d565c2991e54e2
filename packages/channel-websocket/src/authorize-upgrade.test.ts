import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { createUpgradeAuthorizer } from './authorize-upgrade.ts';

function request(headers: Record<string, string>): IncomingMessage {
  return { headers } as IncomingMessage;
}

describe('createUpgradeAuthorizer', () => {
  const authorizer = createUpgradeAuthorizer({ token: 's3cret', allowedOrigins: ['https://chat.example'] });

  it('accepts the token from the sub-protocol list or a Bearer header', () => {
    expect(
      authorizer.authorize(request({ 'sec-websocket-protocol': 'nexus.v1, nexus.token.s3cret' })),
    ).toEqual({
      ok: true,
    });
    expect(authorizer.authorize(request({ authorization: 'bearer s3cret' }))).toEqual({ ok: true });
  });

  it('refuses wrong, longer, shorter and missing tokens with 401', () => {
    const cases: Array<Record<string, string>> = [
      { 'sec-websocket-protocol': 'nexus.v1, nexus.token.s3cre' },
      { 'sec-websocket-protocol': 'nexus.token.s3cret2' },
      { authorization: 'Basic s3cret' },
      { authorization: 'Bearer' },
      {},
    ];
    for (const headers of cases) {
      expect(authorizer.authorize(request(headers))).toMatchObject({ ok: false, status: 401 });
    }
  });

  it('refuses a foreign browser origin with 403 even with the right token', () => {
    const foreign = request({ origin: 'https://evil.example', authorization: 'Bearer s3cret' });
    expect(authorizer.authorize(foreign)).toMatchObject({ ok: false, status: 403 });
    const listed = request({ origin: 'HTTPS://chat.example', authorization: 'Bearer s3cret' });
    expect(authorizer.authorize(listed)).toEqual({ ok: true });
  });

  it('without allowedOrigins allows only the server’s own origin', () => {
    const ownOnly = createUpgradeAuthorizer({ token: 's3cret' });
    const own = request({
      host: '127.0.0.1:8787',
      origin: 'http://127.0.0.1:8787',
      authorization: 'Bearer s3cret',
    });
    expect(ownOnly.authorize(own)).toEqual({ ok: true });
    const foreign = request({
      host: '127.0.0.1:8787',
      origin: 'https://evil.example',
      authorization: 'Bearer s3cret',
    });
    expect(ownOnly.authorize(foreign)).toMatchObject({ ok: false, status: 403 });
  });
});
