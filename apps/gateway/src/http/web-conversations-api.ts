import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AccessStore, SessionStore } from '@nexus/core';
import { requestPath } from '@nexus/limits-kit';
import type { Logger } from '@nexus/protocol';
import { z } from 'zod';
import { digest, sendJson } from './pairing-api.ts';
import { webClientOf } from './web-client-request.ts';

export const WEB_CONVERSATIONS_API_PATH = '/api/web/conversations';

// The web protocol's conversation ids (see @nexus/protocol's web-socket frames).
const conversationIdSchema = z.string().regex(/^[A-Za-z0-9_-]{1,128}$/);

export interface WebConversationsApiOptions {
  sessionStore: SessionStore;
  store: AccessStore;
  /** The web channel's resume log: the conversation's recent events go too. */
  forgetReplay: (conversationId: string, clientId: string) => boolean;
  channelName: string;
  token: string;
  logger: Logger;
}

/**
 * `DELETE /api/web/conversations/:id`, behind the gateway token and scoped to the web client named
 * in `X-Nexus-Client`: deletes that conversation's history (the turns this browser's person wrote
 * and the replies to them, every generation) and the events kept for a resume. A conversation
 * another browser holds is answered 404, as if it did not exist. Returns false for other paths.
 */
export function createWebConversationsApi(options: WebConversationsApiOptions) {
  const expected = digest(options.token);
  const refuse = (response: ServerResponse, status: number, code: string, message: string) =>
    sendJson(response, status, { error: { code, message } });

  return (request: IncomingMessage, response: ServerResponse): boolean => {
    const path = requestPath(request);
    if (path === undefined || !path.startsWith(`${WEB_CONVERSATIONS_API_PATH}/`)) return false;
    const clientId = webClientOf(request, response, expected);
    if (clientId === undefined) return true;
    const conversation = conversationIdSchema.safeParse(path.slice(WEB_CONVERSATIONS_API_PATH.length + 1));
    if (!conversation.success || request.method !== 'DELETE') {
      refuse(response, 404, 'not_found', 'Use DELETE /api/web/conversations/<conversation id>.');
      return true;
    }
    remove(response, clientId, conversation.data).catch((error: unknown) => {
      options.logger.error({ err: error }, 'web conversation delete failed');
      if (!response.headersSent)
        refuse(response, 503, 'unavailable', 'History could not be reached; try again.');
    });
    return true;
  };

  async function remove(response: ServerResponse, clientId: string, conversationId: string) {
    if (!options.forgetReplay(conversationId, clientId)) {
      refuse(response, 404, 'not_found', 'There is no such conversation of yours.');
      return;
    }
    // Turns carry the id the message ran under: the linked person's, or this browser's own.
    const linked = options.store.identities.find({
      channel: options.channelName,
      platformId: clientId,
    })?.userId;
    const userIds = [...new Set([`${options.channelName}:${clientId}`, ...(linked ? [linked] : [])])];
    const deletedTurns =
      (await options.sessionStore.forgetConversation?.({
        conversationKey: `${options.channelName}:${conversationId}`,
        userIds,
      })) ?? 0;
    options.logger.info({ conversationId, deletedTurns }, 'web conversation deleted by its person');
    sendJson(response, 200, { deleted: true, deletedTurns });
  }
}
