import { type AdminApiOptions, callAdminApi } from './admin-api.ts';

/** A person waiting for access, as the gateway's `/api/pairing` lists them. */
export interface PairingRequestView {
  code: string;
  channel: string;
  platformId: string;
  displayName?: string;
  expiresAt: number;
}

/** Failures throw `AdminApiError`. */
export type PairingRequestsOptions = AdminApiOptions;

function call(options: PairingRequestsOptions, path: string, init: RequestInit = {}): Promise<unknown> {
  return callAdminApi(options, `/api/pairing${path}`, init);
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
