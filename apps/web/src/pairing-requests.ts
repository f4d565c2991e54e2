/** A person waiting for access, as the gateway's `/api/pairing` lists them. */
export interface PairingRequestView {
  code: string;
  channel: string;
  platformId: string;
  displayName?: string;
  expiresAt: number;
}

export interface PairingRequestsOptions {
  /** The gateway's web-socket URL; the API lives on the same origin. */
  url: string;
  token: string;
  fetch?: typeof fetch;
}

/** Thrown when the gateway refuses or fails; `message` is fit to show. */
export class PairingRequestError extends Error {
  readonly status: number;

  constructor(status: number, message: string) {
    super(message);
    this.name = 'PairingRequestError';
    this.status = status;
  }
}

function apiUrl(url: string, path: string): string {
  const origin = new URL(url.replace(/^ws(s?):/, 'http$1:')).origin;
  return `${origin}/api/pairing${path}`;
}

async function call(options: PairingRequestsOptions, path: string, init: RequestInit = {}): Promise<unknown> {
  const fetchFunction = options.fetch ?? globalThis.fetch;
  let response: Response;
  try {
    response = await fetchFunction(apiUrl(options.url, path), {
      ...init,
      headers: { authorization: `Bearer ${options.token}`, 'content-type': 'application/json' },
      cache: 'no-store',
      credentials: 'omit',
    });
  } catch {
    throw new PairingRequestError(0, 'The gateway cannot be reached.');
  }
  const body = (await response.json().catch(() => ({}))) as { error?: { message?: string } };
  if (!response.ok) {
    throw new PairingRequestError(
      response.status,
      body.error?.message ?? `The gateway answered ${response.status}.`,
    );
  }
  return body;
}

/** Pending pairing requests, oldest first. */
export async function listPairingRequests(options: PairingRequestsOptions): Promise<PairingRequestView[]> {
  const body = (await call(options, '')) as { requests?: PairingRequestView[] };
  return body.requests ?? [];
}

/** Approves or rejects one request by its code. */
export async function decidePairingRequest(
  options: PairingRequestsOptions & { code: string; decision: 'approve' | 'reject' },
): Promise<void> {
  await call(options, `/${options.decision}`, {
    method: 'POST',
    body: JSON.stringify({ code: options.code }),
  });
}
