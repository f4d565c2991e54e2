import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { type Logger, NexusError, silentLogger } from '@nexus/protocol';
import type { WebUploads } from './web-uploads.ts';

/**
 * The channel's name unless configured otherwise: intents carry it, and a web client's person id
 * is `<name>:<clientId>` (which is also whose media folder its uploads go to).
 */
export const WEB_CHANNEL_NAME = 'web';

export interface WebSocketChannelOptions {
  /** Shared secret every client presents at upgrade (sub-protocol `nexus.token.<token>` or Bearer). */
  token: string;
  /** HTTP path the channel answers upgrades on. Default `/ws`. */
  path?: string;
  /** `Intent.channel` and the prefix of intent and user ids. Default `web`. */
  channelName?: string;
  /** Largest inbound frame; ws closes bigger ones with 1009. Default 64 KiB. */
  maxPayloadBytes?: number;
  /** Ping interval; a peer that missed the previous pong is terminated. Default 30 s. */
  heartbeatMs?: number;
  /** Time allowed between upgrade and `hello` before close 4408. Default 5 s. */
  helloTimeoutMs?: number;
  /** Per-connection `message` frames per minute (burst of the same size). Default 30. */
  messagesPerMinute?: number;
  /** Per-connection frames per second of any kind; beyond this frames are dropped. Default 50. */
  maxFramesPerSecond?: number;
  /** Events kept per conversation for resume. Default 1000. */
  replayLimit?: number;
  /** Conversations remembered (owner and replay log), least recently used forgotten first. Default 10 000. */
  maxConversations?: number;
  /** Approximate size of all replay logs together; oldest events go first. Default 64 MiB. */
  replayMaxBytes?: number;
  /** Above this many bytes waiting for a peer, deltas are merged. Default 1 MiB. */
  coalesceAboveBytes?: number;
  /** Above this many bytes waiting for a peer it is closed with 4413. Default 8 MiB. */
  maxBufferedBytes?: number;
  /**
   * Browser origins allowed to open the socket; any other browser Origin is refused with 403 at
   * upgrade. Unset or empty: only the server's own origin (the Origin's host is the Host header).
   */
  allowedOrigins?: string[];
  /**
   * The person a signed-in upgrade request stands for (a session cookie the server checked). When
   * it names one, that is the connection's client id whatever `hello.clientId` says, so replay
   * ownership, user id and uploads follow the person rather than the browser.
   */
  clientIdOf?: (request: IncomingMessage) => string | undefined;
  /** A key of the sign-in session behind an upgrade, so `closeSession` can end its sockets at sign-out. */
  sessionOf?: (request: IncomingMessage) => string | undefined;
  /** Shown to each client in `welcome.notice`, e.g. how to configure a model provider. */
  notice?: () => string | undefined;
  /** Files clients uploaded over HTTP; unset: `message.attachments` are refused. */
  uploads?: WebUploads;
  /** Largest upload, announced in `welcome.limits`. Default 20 MiB (core's media cap). */
  maxUploadBytes?: number;
  /**
   * Whether a voice note is turned into text (a transcriber is configured), announced as
   * `welcome.limits.voiceNotes` so a client offers recording only when it will be understood.
   */
  voiceNotes?: boolean;
  /**
   * A reply file above this size is sent to the connected client but kept in the replay log as a
   * placeholder without its bytes (a resume shows "no longer available"). Default 2 MiB.
   */
  replayMediaMaxBytes?: number;
  /** `retryAfterMs` announced in the `shutdown` frame. Default 1000. */
  shutdownRetryAfterMs?: number;
  /** How long closing peers get before they are terminated. Default 2000. */
  closeGraceMs?: number;
  logger?: Logger;
  now?: () => number;
  generateId?: () => string;
}

export type ResolvedWebSocketChannelOptions = Required<
  Omit<WebSocketChannelOptions, 'allowedOrigins' | 'notice' | 'uploads' | 'clientIdOf' | 'sessionOf'>
> & {
  [Key in 'allowedOrigins' | 'notice' | 'uploads' | 'clientIdOf' | 'sessionOf']?:
    | WebSocketChannelOptions[Key]
    | undefined;
};

function positive(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isFinite(value) || value <= 0) {
    throw new NexusError({
      code: 'not_configured',
      message: `${name} must be a positive number, got ${value}`,
    });
  }
  return value;
}

/** Applies defaults and rejects settings that would silently disable a protection. */
export function resolveWebSocketChannelOptions(
  options: WebSocketChannelOptions,
): ResolvedWebSocketChannelOptions {
  if (typeof options.token !== 'string' || options.token.length === 0) {
    throw new NexusError({
      code: 'not_configured',
      message: 'the web-socket channel needs a non-empty token',
    });
  }
  const path = options.path ?? '/ws';
  if (!path.startsWith('/')) {
    throw new NexusError({ code: 'not_configured', message: `path must start with "/", got "${path}"` });
  }
  return {
    token: options.token,
    path,
    channelName: options.channelName ?? WEB_CHANNEL_NAME,
    maxPayloadBytes: positive('maxPayloadBytes', options.maxPayloadBytes, 64 * 1024),
    heartbeatMs: positive('heartbeatMs', options.heartbeatMs, 30_000),
    helloTimeoutMs: positive('helloTimeoutMs', options.helloTimeoutMs, 5000),
    messagesPerMinute: positive('messagesPerMinute', options.messagesPerMinute, 30),
    maxFramesPerSecond: positive('maxFramesPerSecond', options.maxFramesPerSecond, 50),
    replayLimit: positive('replayLimit', options.replayLimit, 1000),
    maxConversations: positive('maxConversations', options.maxConversations, 10_000),
    replayMaxBytes: positive('replayMaxBytes', options.replayMaxBytes, 64 * 1024 * 1024),
    coalesceAboveBytes: positive('coalesceAboveBytes', options.coalesceAboveBytes, 1024 * 1024),
    maxBufferedBytes: positive('maxBufferedBytes', options.maxBufferedBytes, 8 * 1024 * 1024),
    allowedOrigins: options.allowedOrigins,
    notice: options.notice,
    clientIdOf: options.clientIdOf,
    sessionOf: options.sessionOf,
    uploads: options.uploads,
    maxUploadBytes: positive('maxUploadBytes', options.maxUploadBytes, 20 * 1024 * 1024),
    voiceNotes: options.voiceNotes ?? false,
    replayMediaMaxBytes: positive('replayMediaMaxBytes', options.replayMediaMaxBytes, 2 * 1024 * 1024),
    shutdownRetryAfterMs: positive('shutdownRetryAfterMs', options.shutdownRetryAfterMs, 1000),
    closeGraceMs: positive('closeGraceMs', options.closeGraceMs, 2000),
    logger: options.logger ?? silentLogger,
    now: options.now ?? Date.now,
    generateId: options.generateId ?? randomUUID,
  };
}
