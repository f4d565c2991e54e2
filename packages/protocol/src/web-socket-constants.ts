// Plain constants with no zod import, so the browser bundle can use them without pulling in schemas.

/** Version of the web-socket protocol; bumped on any incompatible frame change. */
export const WEB_SOCKET_PROTOCOL_VERSION = 1;
/** Sub-protocol the server selects; browsers send the token as a second sub-protocol. */
export const WEB_SOCKET_SUBPROTOCOL = 'nexus.v1';
/** Prefix of the sub-protocol that carries the gateway token (browsers cannot set headers). */
export const WEB_SOCKET_TOKEN_PROTOCOL_PREFIX = 'nexus.token.';

/** Close codes beyond the standard ones (1001 going away, 1009 too big). */
export const WEB_SOCKET_CLOSE_CODES = {
  unauthorized: 4401,
  helloTimeout: 4408,
  rateLimited: 4429,
  slowConsumer: 4413,
} as const;
