import type { IncomingMessage, ServerResponse } from 'node:http';
import { requestPath } from '@nexus/limits-kit';
import type { Logger } from '@nexus/protocol';
import { z } from 'zod';
import type { WebSessions } from '../web/web-sessions.ts';
import { authorized, digest, sendJson } from './pairing-api.ts';
import { readJsonBody } from './read-json-body.ts';

export const WEB_INVITES_API_PATH = '/api/web/invites';

const createSchema = z.object({ name: z.string().trim().min(1).max(80) });
const inviteIdSchema = z.string().regex(/^[A-Za-z0-9_-]{1,32}$/);

export interface WebInvitesApiOptions {
  sessions: WebSessions;
  token: string;
  /** Closes the open sockets of a person whose invite was revoked; returns how many. */
  endConnections: (clientId: string) => number;
  logger: Logger;
}

/**
 * The owner's invite links (the Access panel), behind the owner's credential (token or owner
 * session; an invited person's cookie does not open this route): `GET /api/web/invites` lists,
 * `POST {name}` makes one and returns its token once, `DELETE /api/web/invites/:id` revokes it,
 * ending its sessions and open sockets. Returns false for other paths.
 */
export function createWebInvitesApi(options: WebInvitesApiOptions) {
  const expected = digest(options.token);
  const refuse = (response: ServerResponse, status: number, code: string, message: string) =>
    sendJson(response, status, { error: { code, message } });

  return (request: IncomingMessage, response: ServerResponse): boolean => {
    const path = requestPath(request);
    if (path === undefined) return false;
    if (path !== WEB_INVITES_API_PATH && !path.startsWith(`${WEB_INVITES_API_PATH}/`)) return false;
    if (!authorized(request.headers.authorization, expected)) {
      refuse(response, 401, 'unauthorized', 'Only the owner manages invite links.');
      return true;
    }
    if (path === WEB_INVITES_API_PATH && request.method === 'GET') {
      sendJson(response, 200, { invites: options.sessions.listInvites() });
      return true;
    }
    if (path === WEB_INVITES_API_PATH && request.method === 'POST') {
      create(request, response);
      return true;
    }
    const inviteId = inviteIdSchema.safeParse(path.slice(WEB_INVITES_API_PATH.length + 1));
    if (request.method === 'DELETE' && inviteId.success) {
      const invite = options.sessions.listInvites().find((entry) => entry.inviteId === inviteId.data);
      if (invite === undefined || !options.sessions.revokeInvite(inviteId.data)) {
        refuse(response, 404, 'not_found', 'There is no such invite link.');
        return true;
      }
      const closed = options.endConnections(invite.clientId);
      options.logger.info({ inviteId: inviteId.data, closed }, 'web: invite link revoked');
      sendJson(response, 200, { revoked: true });
      return true;
    }
    refuse(response, 404, 'not_found', 'Use GET or POST /api/web/invites, or DELETE /api/web/invites/<id>.');
    return true;
  };

  function create(request: IncomingMessage, response: ServerResponse): void {
    readJsonBody(request, 1024)
      .then((body) => {
        const parsed = createSchema.safeParse(body);
        if (!parsed.success) {
          refuse(
            response,
            400,
            'bad_request',
            'Send {"name": "<who the link is for>"} (1 to 80 characters).',
          );
          return;
        }
        const { invite, token } = options.sessions.createInvite(parsed.data.name);
        options.logger.info({ inviteId: invite.inviteId }, 'web: invite link created');
        sendJson(response, 201, { invite, token });
      })
      .catch((error: unknown) => {
        options.logger.warn({ err: error }, 'web: invite not created');
        if (!response.headersSent)
          refuse(response, 400, 'bad_request', error instanceof Error ? error.message : 'unreadable body');
      });
  }
}
