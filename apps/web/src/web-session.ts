/** What `/api/web/session` answers: whose person this browser is now. */
export interface SignedIn {
  clientId: string;
  /** `owner` (the owner link) or `invited` (an invite link the owner made for someone). */
  person?: 'owner' | 'invited';
}

/** A sign-in the gateway refused (401: wrong token) or could not be asked (status 0). */
export class SignInError extends Error {
  readonly status: number;

  constructor(status: number, message: string) {
    super(message);
    this.name = 'SignInError';
    this.status = status;
  }
}

export interface WebSessionOptions {
  /** The gateway's web-socket URL; the session routes live on the same origin. */
  url: string;
  fetch?: typeof fetch;
}

const sessionUrl = (url: string) => `${new URL(url.replace(/^ws(s?):/, 'http$1:')).origin}/api/web/session`;

async function call(options: WebSessionOptions, init: RequestInit): Promise<Response> {
  try {
    return await (options.fetch ?? globalThis.fetch)(sessionUrl(options.url), {
      ...init,
      cache: 'no-store',
      credentials: 'same-origin',
    });
  } catch {
    throw new SignInError(0, 'The gateway cannot be reached.');
  }
}

function personOf(body: unknown): SignedIn {
  const { clientId, person } = (body ?? {}) as { clientId?: unknown; person?: unknown };
  if (typeof clientId !== 'string' || clientId === '')
    throw new SignInError(502, 'The gateway answered oddly.');
  return { clientId, person: person === 'invited' ? 'invited' : 'owner' };
}

/**
 * Trades the link's token for a session cookie (HttpOnly: no script here can read it). The answer
 * names the person every browser signing in with this link is, which this browser then uses.
 */
export async function signIn(
  options: WebSessionOptions & { token: string; clientId: string },
): Promise<SignedIn> {
  const response = await call(options, {
    method: 'POST',
    headers: { authorization: `Bearer ${options.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ clientId: options.clientId }),
  });
  if (response.status === 401) throw new SignInError(401, 'The gateway did not accept that token.');
  if (response.status === 403) throw new SignInError(403, 'This invite link was revoked. Ask for a new one.');
  if (!response.ok) throw new SignInError(response.status, `The gateway answered ${response.status}.`);
  return personOf(await response.json());
}

/** The person this browser's cookie stands for; undefined when it is not signed in. */
export async function currentSession(options: WebSessionOptions): Promise<SignedIn | undefined> {
  const response = await call(options, { method: 'GET' });
  if (response.status === 401) return undefined;
  if (!response.ok) throw new SignInError(response.status, `The gateway answered ${response.status}.`);
  return personOf(await response.json());
}

/** Ends the session on the gateway (the cookie stops working everywhere it was copied to). */
export async function signOut(options: WebSessionOptions): Promise<void> {
  const response = await call(options, { method: 'DELETE' });
  if (!response.ok) throw new SignInError(response.status, `The gateway answered ${response.status}.`);
}
