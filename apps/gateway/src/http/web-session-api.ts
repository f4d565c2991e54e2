import type { IncomingMessage, ServerResponse } from 'node:http';
import type { TLSSocket } from 'node:tls';
import { isAllowedOrigin } from '@nexus/channel-websocket';
import { requestPath } from '@nexus/limits-kit';
import type { Logger } from '@nexus/protocol';
import { z } from 'zod';
import { hashOf, type WebPerson, type WebSessions } from '../web/web-sessions.ts';
import { authorized, digest, sendJson } from './pairing-api.ts';
import { readJsonBody } from './read-json-body.ts';
import { WEB_CLIENT_HEADER } from './web-client-request.ts';

export const WEB_SESSION_API_PATH = '/api/web/session';
export const WEB_SESSION_COOKIE = 'nexus_session';

const signInSchema = z.object({ clientId: z.string().min(1).max(128) });
const LOOPBACK = new Set(['127.0.0.1', '::1', '::ffff:127.0.0.1']);
/** What an invited person may reach besides the socket: their own memory, files and conversations. */
const PERSON_ROUTES = ['/api/memory', '/api/web/uploads', '/api/web/conversations', WEB_SESSION_API_PATH];
const isPersonRoute = (path: string) =>
  PERSON_ROUTES.some((route) => path === route || path.startsWith(`${route}/`));

export interface WebSessionApiOptions {
  sessions: WebSessions;
  token: string;
  /** `NEXUS_WEB_ALLOWED_ORIGINS`: a cookie only counts on requests from these pages (or the gateway's own). */
  allowedOrigins: string[] | undefined;
  /** The web socket's path: a cookie counts there besides `/api/*`. */
  socketPath: string;
  /** Closes the sockets opened with a session (by `sessionOf`'s key) when it signs out. */
  endSession: (session: string) => number;
  logger: Logger;
}

export interface WebSessionApi {
  /** The sessions and invite links behind the cookie. */
  readonly sessions: WebSessions;
  /** `POST|GET|DELETE /api/web/session`; false for other paths. */
  handle(request: IncomingMessage, response: ServerResponse): boolean;
  /**
   * Run first on every request and upgrade: a valid session cookie (and no Authorization header)
   * stands for the gateway token and names its person in `X-Nexus-Client`, replacing whatever
   * the browser sent, so the routes behind the token need no second way in and a browser cannot
   * choose another person's id.
   */
  admit(request: IncomingMessage): void;
  /** The person a request was admitted as by its session cookie; undefined for token clients. */
  clientIdOf(request: IncomingMessage): string | undefined;
  /** Who a request was admitted as (owner or invited); undefined for token clients. */
  personOf(request: IncomingMessage): WebPerson | undefined;
  /** The key of the session a request was admitted with (see `WebSessionApiOptions.endSession`). */
  sessionOf(request: IncomingMessage): string | undefined;
}

/** The session id in the request's `Cookie` header, if any. */
function sessionCookieOf(request: IncomingMessage): string | undefined {
  for (const part of (request.headers.cookie ?? '').split(';')) {
    const separator = part.indexOf('=');
    if (separator > 0 && part.slice(0, separator).trim() === WEB_SESSION_COOKIE) {
      const value = part.slice(separator + 1).trim();
      return value === '' ? undefined : value;
    }
  }
  return undefined;
}

/**
 * `Secure` when the browser reached us over TLS: the socket itself, or `X-Forwarded-Proto: https`
 * from a reverse proxy on this machine (the only proxy whose header cannot be forged by a visitor).
 */
function cameOverTls(request: IncomingMessage): boolean {
  if ((request.socket as TLSSocket).encrypted === true) return true;
  const forwarded = request.headers['x-forwarded-proto'];
  const proto = (Array.isArray(forwarded) ? forwarded[0] : forwarded)?.split(',')[0]?.trim().toLowerCase();
  return proto === 'https' && LOOPBACK.has(request.socket.remoteAddress ?? '');
}

function cookieHeader(request: IncomingMessage, value: string, maxAgeSeconds: number): string {
  const secure = cameOverTls(request) ? '; Secure' : '';
  return `${WEB_SESSION_COOKIE}=${value}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${maxAgeSeconds}${secure}`;
}

/**
 * Web sign-in: the link's token is exchanged once for a session cookie (HttpOnly, SameSite=Strict,
 * Secure behind TLS), so no script on the page can read the credential and the token need not stay
 * in the browser. Token clients (CLI, scripts) keep using `Authorization: Bearer`.
 */
export function createWebSessionApi(options: WebSessionApiOptions): WebSessionApi {
  const expected = digest(options.token);
  const admitted = new WeakMap<IncomingMessage, WebPerson>();
  const answer = (person: WebPerson) => ({
    clientId: person.clientId,
    person: person.person,
    ...(person.name === undefined ? {} : { name: person.name }),
  });
  const refuse = (response: ServerResponse, status: number, code: string, message: string) =>
    sendJson(response, status, { error: { code, message } });

  function signIn(request: IncomingMessage, response: ServerResponse): void {
    if (!authorized(request.headers.authorization, expected)) {
      signInInvited(request, response);
      return;
    }
    readJsonBody(request, 1024)
      .then((body) => {
        const parsed = signInSchema.safeParse(body);
        if (!parsed.success) {
          refuse(response, 400, 'bad_request', 'Send {"clientId": "<this browser\'s client id>"}.');
          return;
        }
        const { sessionId, clientId } = options.sessions.signInOwner(parsed.data.clientId);
        options.logger.info({ firstBrowser: clientId === parsed.data.clientId }, 'web: owner signed in');
        response.setHeader('set-cookie', cookieHeader(request, sessionId, 90 * 24 * 60 * 60));
        sendJson(response, 200, answer({ clientId, person: 'owner' }));
      })
      .catch((error: unknown) => {
        options.logger.warn({ err: error }, 'web: sign-in failed');
        if (!response.headersSent)
          refuse(response, 400, 'bad_request', error instanceof Error ? error.message : 'unreadable body');
      });
  }

  /** A token that is not the owner's may be an invite link's: that person, never the owner. */
  function signInInvited(request: IncomingMessage, response: ServerResponse): void {
    const token = /^Bearer\s+(\S+)$/i.exec(request.headers.authorization ?? '')?.[1];
    const result = token === undefined ? 'unknown' : options.sessions.signInInvited(token);
    if (result === 'unknown') {
      refuse(response, 401, 'unauthorized', 'Send the link token as a Bearer token to sign in.');
      return;
    }
    if (result === 'revoked') {
      refuse(response, 403, 'revoked', 'This invite link was revoked. Ask for a new one.');
      return;
    }
    request.resume();
    options.logger.info({ inviteId: result.person.inviteId }, 'web: invited person signed in');
    response.setHeader('set-cookie', cookieHeader(request, result.sessionId, 90 * 24 * 60 * 60));
    sendJson(response, 200, answer(result.person));
  }

  return {
    sessions: options.sessions,
    admit(request) {
      if (request.headers.authorization !== undefined) return;
      const path = requestPath(request);
      if (path === undefined || (!path.startsWith('/api/') && path !== options.socketPath)) return;
      if (!isAllowedOrigin(request, options.allowedOrigins)) return;
      const sessionId = sessionCookieOf(request);
      const person = sessionId === undefined ? undefined : options.sessions.personOf(sessionId);
      if (person === undefined) return;
      // An invited person's cookie opens their own things only; the owner's routes stay closed.
      if (person.person === 'invited' && path !== options.socketPath && !isPersonRoute(path)) return;
      request.headers.authorization = `Bearer ${options.token}`;
      request.headers[WEB_CLIENT_HEADER] = person.clientId;
      request.headers['x-nexus-client-id'] = person.clientId;
      admitted.set(request, person);
    },

    clientIdOf: (request) => admitted.get(request)?.clientId,
    personOf: (request) => admitted.get(request),
    sessionOf: (request) => {
      const sessionId = admitted.has(request) ? sessionCookieOf(request) : undefined;
      return sessionId === undefined ? undefined : hashOf(sessionId);
    },

    handle(request, response) {
      if (requestPath(request) !== WEB_SESSION_API_PATH) return false;
      if (request.method === 'POST') {
        signIn(request, response);
        return true;
      }
      const person = admitted.get(request);
      if (request.method === 'GET') {
        if (person === undefined) refuse(response, 401, 'unauthorized', 'Not signed in.');
        else sendJson(response, 200, answer(person));
        return true;
      }
      if (request.method === 'DELETE') {
        const sessionId = sessionCookieOf(request);
        const ended = person !== undefined && sessionId !== undefined && options.sessions.end(sessionId);
        // Other tabs of this browser share the cookie: their sockets end with it.
        if (ended && sessionId !== undefined) options.endSession(hashOf(sessionId));
        response.setHeader('set-cookie', cookieHeader(request, '', 0));
        sendJson(response, 200, { signedOut: ended });
        return true;
      }
      refuse(response, 405, 'method_not_allowed', 'Use POST, GET or DELETE /api/web/session.');
      return true;
    },
  };
}
