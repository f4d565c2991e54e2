import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { isAllowedOrigin } from './is-allowed-origin.ts';

function request(headers: Record<string, string>): IncomingMessage {
  return { headers } as IncomingMessage;
}

describe('isAllowedOrigin', () => {
  it('lets a request without Origin through: it is not from a browser page', () => {
    expect(isAllowedOrigin(request({ host: 'chat.example' }))).toBe(true);
    expect(isAllowedOrigin(request({ host: 'chat.example' }), ['https://chat.example'])).toBe(true);
  });

  it('without a list, or with an empty one, allows only the server’s own origin', () => {
    for (const list of [undefined, []]) {
      expect(
        isAllowedOrigin(request({ host: '127.0.0.1:8787', origin: 'http://127.0.0.1:8787' }), list),
      ).toBe(true);
      expect(isAllowedOrigin(request({ host: '127.0.0.1:8787', origin: 'https://evil.example' }), list)).toBe(
        false,
      );
      expect(
        isAllowedOrigin(request({ host: '127.0.0.1:8787', origin: 'http://127.0.0.1:9999' }), list),
      ).toBe(false);
    }
  });

  it('with a list, allows exactly the listed origins, whatever their case', () => {
    const list = ['https://chat.example'];
    expect(isAllowedOrigin(request({ host: 'internal:8787', origin: 'HTTPS://chat.example' }), list)).toBe(
      true,
    );
    expect(isAllowedOrigin(request({ host: 'internal:8787', origin: 'https://evil.example' }), list)).toBe(
      false,
    );
    // The server's own address is not implied once a list is set.
    expect(isAllowedOrigin(request({ host: 'internal:8787', origin: 'http://internal:8787' }), list)).toBe(
      false,
    );
  });

  it('refuses an Origin that is not a URL (a sandboxed frame sends `null`)', () => {
    expect(isAllowedOrigin(request({ host: 'chat.example', origin: 'null' }))).toBe(false);
  });
});
