import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AccessStore, ConversationList, SessionStore } from '@nexus/core';
import { requestPath } from '@nexus/limits-kit';
import type { Logger, ServerFrame } from '@nexus/protocol';
import { z } from 'zod';
import { MAX_CONVERSATION_TITLE_CHARS, toWebConversationSummary } from '../web/web-conversation-events.ts';
import { digest, sendJson } from './pairing-api.ts';
import { BodyTooLarge } from './read-body.ts';
import { readJsonBody } from './read-json-body.ts';
import { webClientOf } from './web-client-request.ts';
import {
  importConversations,
  importRequestSchema,
  MAX_IMPORT_BODY_BYTES,
} from './web-conversations-import.ts';

export const WEB_CONVERSATIONS_API_PATH = '/api/web/conversations';
/** Most conversations one list answer carries, most recently active first. */
export const MAX_LISTED_CONVERSATIONS = 500;
/** Exchanges one history read returns at most (and by default); older ones are paged with `before`. */
export const MAX_READ_EXCHANGES = 200;
const DEFAULT_READ_EXCHANGES = 100;

// The web protocol's conversation ids (see @nexus/protocol's web-socket frames).
const conversationIdSchema = z.string().regex(/^[A-Za-z0-9_-]{1,128}$/);
const renameSchema = z.object({ title: z.string().max(1000) });
const readQuerySchema = z.object({
  before: z.coerce.number().int().positive().optional(),
  limit: z.coerce.number().int().min(1).max(MAX_READ_EXCHANGES).default(DEFAULT_READ_EXCHANGES),
});

export interface WebConversationsApiOptions {
  sessionStore: SessionStore;
  store: AccessStore;
  /** The web channel's resume log: the conversation's recent events go too. */
  forgetReplay: (conversationId: string, clientId: string) => boolean;
  /** Tells every socket of a person (their other tabs and devices) about a change to their list. */
  notify: (clientId: string, frame: ServerFrame) => void;
  channelName: string;
  token: string;
  logger: Logger;
  now?: () => number;
}

class RouteRefusal extends Error {
  readonly status: number;
  readonly code: string;

  constructor(status: number, code: string, message: string) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

/**
 * The web client's conversations, kept on the gateway per person so every browser of that person
 * sees the same list. Behind the gateway token (or a session cookie standing for it) and scoped to
 * the person named in `X-Nexus-Client`:
 *   GET    /api/web/conversations                      → {conversations}
 *   GET    /api/web/conversations/:id?before=&limit=   → {conversation, messages, more}
 *   PATCH  /api/web/conversations/:id {title}          → {conversation}
 *   DELETE /api/web/conversations/:id                  → {deleted, deletedTurns}
 *   POST   /api/web/conversations/import {conversations} → {results}
 * Another person's conversation answers 404, as if it did not exist. Returns false for other paths.
 */
export function createWebConversationsApi(options: WebConversationsApiOptions) {
  const expected = digest(options.token);
  const channel = options.channelName;
  const now = options.now ?? Date.now;
  const refuse = (response: ServerResponse, status: number, code: string, message: string) =>
    sendJson(response, status, { error: { code, message } });

  /** Turns carry the id the message ran under: the linked person's, or this browser's own. */
  const userIdsOf = (clientId: string) => {
    const linked = options.store.identities.find({ channel, platformId: clientId })?.userId;
    return [...new Set([`${channel}:${clientId}`, ...(linked ? [linked] : [])])];
  };
  const listOf = (): ConversationList => {
    const list = options.sessionStore.conversations;
    if (list === undefined) throw new RouteRefusal(501, 'not_supported', 'This history store keeps no list.');
    return list;
  };
  /** The person's own conversation; another person's (or none) is 404. */
  const ownConversation = async (clientId: string, conversationId: string) => {
    const entry = await listOf().get({ channel, conversationId });
    if (entry === undefined || entry.owner !== clientId || entry.deletedAt !== undefined)
      throw new RouteRefusal(404, 'not_found', 'There is no such conversation of yours.');
    return entry;
  };

  async function route(request: IncomingMessage, response: ServerResponse, clientId: string, rest: string) {
    if (rest === '' && request.method === 'GET') {
      const entries = await listOf().list({ channel, owner: clientId, limit: MAX_LISTED_CONVERSATIONS });
      sendJson(response, 200, { conversations: entries.map(toWebConversationSummary) });
      return;
    }
    if (rest === '/import' && request.method === 'POST') {
      const parsed = importRequestSchema.safeParse(await readJsonBody(request, MAX_IMPORT_BODY_BYTES));
      if (!parsed.success)
        throw new RouteRefusal(400, 'bad_request', `Not an import: ${parsed.error.message}`);
      const [userId] = userIdsOf(clientId).slice(-1);
      const results = await importConversations({
        list: listOf(),
        channel,
        clientId,
        userId: userId ?? `${channel}:${clientId}`,
        request: parsed.data,
      });
      sendJson(response, 200, { results });
      return;
    }
    const conversation = conversationIdSchema.safeParse(rest.slice(1));
    if (!rest.startsWith('/') || !conversation.success)
      throw new RouteRefusal(404, 'not_found', 'Use /api/web/conversations[/<conversation id>].');
    const conversationId = conversation.data;
    if (request.method === 'GET') await read(request, response, clientId, conversationId);
    else if (request.method === 'PATCH') await rename(request, response, clientId, conversationId);
    else if (request.method === 'DELETE') await remove(response, clientId, conversationId);
    else throw new RouteRefusal(405, 'method_not_allowed', 'Use GET, PATCH or DELETE on a conversation.');
  }

  async function read(request: IncomingMessage, response: ServerResponse, clientId: string, id: string) {
    const query = readQuerySchema.safeParse(
      Object.fromEntries(new URL(request.url ?? '/', 'http://gateway').searchParams),
    );
    if (!query.success)
      throw new RouteRefusal(400, 'bad_request', `limit is 1–${MAX_READ_EXCHANGES}; before is a seq.`);
    const entry = await ownConversation(clientId, id);
    const prefix = `${channel}:${clientId}:`;
    const page = await listOf().messages({
      channel,
      conversationId: id,
      limit: query.data.limit,
      ...(query.data.before === undefined ? {} : { before: query.data.before }),
    });
    sendJson(response, 200, {
      conversation: toWebConversationSummary(entry),
      messages: page.messages.map((message) => ({
        seq: message.seq,
        // The id the browser sent it under: what an edit, delete or regenerate names.
        clientMessageId: message.intentId.startsWith(prefix)
          ? message.intentId.slice(prefix.length)
          : message.intentId,
        text: message.userText,
        replyText: message.replyText,
        ...(message.replyId === undefined ? {} : { replyId: message.replyId }),
        outcome: message.outcome,
        createdAt: message.createdAt,
      })),
      more: page.more,
    });
  }

  async function rename(request: IncomingMessage, response: ServerResponse, clientId: string, id: string) {
    const parsed = renameSchema.safeParse(await readJsonBody(request, 4096));
    const title = parsed.success ? parsed.data.title.replace(/\s+/g, ' ').trim() : '';
    if (title === '' || title.length > MAX_CONVERSATION_TITLE_CHARS)
      throw new RouteRefusal(
        400,
        'bad_request',
        `Send {"title"} of 1–${MAX_CONVERSATION_TITLE_CHARS} characters.`,
      );
    await ownConversation(clientId, id);
    const entry = await listOf().rename({ channel, conversationId: id, owner: clientId, title });
    if (entry === undefined)
      throw new RouteRefusal(404, 'not_found', 'There is no such conversation of yours.');
    const summary = toWebConversationSummary(entry);
    options.notify(clientId, { type: 'conversation', change: 'renamed', conversation: summary });
    sendJson(response, 200, { conversation: summary });
  }

  async function remove(response: ServerResponse, clientId: string, conversationId: string) {
    const list = options.sessionStore.conversations;
    const entry = await list?.get({ channel, conversationId });
    if ((entry !== undefined && entry.owner !== clientId) || !options.forgetReplay(conversationId, clientId))
      throw new RouteRefusal(404, 'not_found', 'There is no such conversation of yours.');
    const deletedTurns =
      (await options.sessionStore.forgetConversation?.({
        conversationKey: `${channel}:${conversationId}`,
        userIds: userIdsOf(clientId),
      })) ?? 0;
    const at = now();
    if (entry !== undefined && (await list?.markDeleted({ channel, conversationId, owner: clientId, at })))
      options.notify(clientId, {
        type: 'conversation',
        change: 'deleted',
        conversation: { ...toWebConversationSummary(entry), updatedAt: at },
      });
    options.logger.info({ conversationId, deletedTurns }, 'web conversation deleted by its person');
    sendJson(response, 200, { deleted: true, deletedTurns });
  }

  return (request: IncomingMessage, response: ServerResponse): boolean => {
    const path = requestPath(request);
    if (
      path === undefined ||
      (path !== WEB_CONVERSATIONS_API_PATH && !path.startsWith(`${WEB_CONVERSATIONS_API_PATH}/`))
    )
      return false;
    const clientId = webClientOf(request, response, expected);
    if (clientId === undefined) return true;
    route(request, response, clientId, path.slice(WEB_CONVERSATIONS_API_PATH.length)).catch(
      (error: unknown) => {
        if (response.headersSent) return;
        if (error instanceof RouteRefusal) refuse(response, error.status, error.code, error.message);
        else if (error instanceof BodyTooLarge) refuse(response, 413, 'payload_too_large', error.message);
        else if (error instanceof Error && error.message === 'The body is not valid JSON.')
          refuse(response, 400, 'bad_request', error.message);
        else {
          options.logger.error({ err: error }, 'web conversations route failed');
          refuse(response, 503, 'unavailable', 'History could not be reached; try again.');
        }
      },
    );
    return true;
  };
}
