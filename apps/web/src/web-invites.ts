import { type AdminApiOptions, callAdminApi } from './admin-api.ts';

/** An invite link as the gateway's `/api/web/invites` lists it (its token is shown only once). */
export interface WebInviteView {
  inviteId: string;
  name: string;
  clientId: string;
  createdAt: number;
  revoked: boolean;
}

/** Every invite link, newest first, revoked ones included. Failures throw `AdminApiError`. */
export async function listInvites(options: AdminApiOptions): Promise<WebInviteView[]> {
  const body = (await callAdminApi(options, '/api/web/invites')) as { invites?: WebInviteView[] };
  return body.invites ?? [];
}

/** Makes a link for one person; returns it with the address to send them. */
export async function createInvite(
  options: AdminApiOptions & { name: string; origin: string },
): Promise<{ invite: WebInviteView; link: string }> {
  const body = (await callAdminApi(options, '/api/web/invites', {
    method: 'POST',
    body: JSON.stringify({ name: options.name }),
  })) as { invite: WebInviteView; token: string };
  return { invite: body.invite, link: `${options.origin}/#token=${body.token}` };
}

/** Refuses the link from now on; whoever signed in with it is signed out. */
export async function revokeInvite(options: AdminApiOptions & { inviteId: string }): Promise<void> {
  await callAdminApi(options, `/api/web/invites/${encodeURIComponent(options.inviteId)}`, {
    method: 'DELETE',
  });
}
