import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { WEB_SOCKET_TOKEN_PROTOCOL_PREFIX } from '@nexus/protocol';
import { isAllowedOrigin } from './is-allowed-origin.ts';

export type UpgradeVerdict = { ok: true } | { ok: false; status: 401 | 403; reason: string };

export interface UpgradeAuthorizer {
  authorize(request: IncomingMessage): UpgradeVerdict;
}

export interface UpgradeAuthorizerOptions {
  token: string;
  /** Browser origins allowed to connect; without a list, only the server's own (see `isAllowedOrigin`). */
  allowedOrigins?: readonly string[] | undefined;
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(',') : value;
}

/** Token candidates: the `nexus.token.<token>` sub-protocol (browsers) and `Authorization: Bearer`. */
function presentedTokens(request: IncomingMessage): string[] {
  const tokens: string[] = [];
  const protocols = headerValue(request.headers['sec-websocket-protocol']);
  if (protocols !== undefined) {
    for (const protocol of protocols.split(',')) {
      const trimmed = protocol.trim();
      if (trimmed.startsWith(WEB_SOCKET_TOKEN_PROTOCOL_PREFIX)) {
        tokens.push(trimmed.slice(WEB_SOCKET_TOKEN_PROTOCOL_PREFIX.length));
      }
    }
  }
  const authorization = request.headers.authorization;
  const bearer = authorization === undefined ? undefined : /^Bearer\s+(\S+)\s*$/i.exec(authorization)?.[1];
  if (bearer !== undefined) tokens.push(bearer);
  return tokens;
}

/**
 * Decides at HTTP upgrade time, before any web-socket state exists, whether a request may connect.
 * Tokens are hashed before `timingSafeEqual` so the comparison takes the same time whatever the
 * presented length. The Origin check (`isAllowedOrigin`, the same rule the gateway's sign-in
 * routes use) stops other sites from riding a browser's access; it is the only Origin check on
 * the upgrade path.
 */
export function createUpgradeAuthorizer(options: UpgradeAuthorizerOptions): UpgradeAuthorizer {
  const expected = digest(options.token);
  return {
    authorize(request) {
      if (!isAllowedOrigin(request, options.allowedOrigins)) {
        return { ok: false, status: 403, reason: 'origin not allowed' };
      }
      let matched = false;
      for (const candidate of presentedTokens(request)) {
        // No early exit: every candidate costs the same comparison.
        if (timingSafeEqual(digest(candidate), expected)) matched = true;
      }
      return matched ? { ok: true } : { ok: false, status: 401, reason: 'missing or wrong token' };
    },
  };
}
