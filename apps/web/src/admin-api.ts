/** Where the gateway's admin API is and the token it wants (the one the chat signs in with). */
export interface AdminApiOptions {
  /** The gateway's web-socket URL; the API lives on the same origin. */
  url: string;
  /** A token client's credential; unset in a signed-in browser, whose session cookie goes instead. */
  token?: string;
  fetch?: typeof fetch;
}

/** Thrown when the gateway refuses or fails; `message` is fit to show. */
export class AdminApiError extends Error {
  readonly status: number;

  constructor(status: number, message: string) {
    super(message);
    this.name = 'AdminApiError';
    this.status = status;
  }
}

/**
 * One call to the gateway's admin API: with the session cookie (HttpOnly, SameSite=Strict, so
 * another site cannot make the browser send it) or a token as a Bearer header; nothing cached,
 * since answers carry codes.
 */
export async function callAdminApi(
  options: AdminApiOptions,
  path: string,
  init: RequestInit = {},
): Promise<unknown> {
  const fetchFunction = options.fetch ?? globalThis.fetch;
  const origin = new URL(options.url.replace(/^ws(s?):/, 'http$1:')).origin;
  let response: Response;
  try {
    response = await fetchFunction(`${origin}${path}`, {
      ...init,
      headers: {
        ...(options.token === undefined ? {} : { authorization: `Bearer ${options.token}` }),
        'content-type': 'application/json',
        ...(init.headers as Record<string, string> | undefined),
      },
      cache: 'no-store',
      credentials: options.token === undefined ? 'same-origin' : 'omit',
    });
  } catch {
    throw new AdminApiError(0, 'The gateway cannot be reached.');
  }
  const body = (await response.json().catch(() => ({}))) as { error?: { message?: string } };
  if (!response.ok) {
    throw new AdminApiError(
      response.status,
      body.error?.message ?? `The gateway answered ${response.status}.`,
    );
  }
  return body;
}
