export interface TokenCheckOptions {
  /** The gateway's web-socket URL; the check asks the same path over HTTP. */
  url: string;
  /** Unset: ask with the session cookie, whose end (sign out, expiry) is answered 401 too. */
  token?: string;
  fetch?: typeof fetch;
}

/**
 * Whether the gateway positively rejects the token. A page cannot see why a web-socket handshake
 * failed (a 401 and a server that is down look the same), so after a failed handshake it asks
 * `GET /ws` with `Authorization: Bearer`: 401 means the token is wrong. Any other answer, or no
 * answer, means "not known to be wrong" and the client keeps reconnecting.
 */
export async function isTokenRejected(options: TokenCheckOptions): Promise<boolean> {
  const fetchFunction = options.fetch ?? globalThis.fetch;
  const url = options.url.replace(/^ws(s?):/, 'http$1:');
  try {
    const response = await fetchFunction(url, {
      headers: options.token === undefined ? {} : { authorization: `Bearer ${options.token}` },
      cache: 'no-store',
      credentials: options.token === undefined ? 'same-origin' : 'omit',
    });
    await response.body?.cancel();
    return response.status === 401;
  } catch {
    return false;
  }
}
