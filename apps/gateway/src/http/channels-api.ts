import type { IncomingMessage, ServerResponse } from 'node:http';
import { decodePathSegment, requestPath } from '@nexus/limits-kit';
import type { ChannelAdapter, ChannelHealth, ChannelLinkState, Logger } from '@nexus/protocol';
import type { McpServerStatus } from '@nexus/tools-mcp';
import { authorized, digest, sendJson } from './pairing-api.ts';

export const CHANNELS_API_PATH = '/api/channels';

/** One channel as the web admin view shows it. */
export interface ChannelView {
  name: string;
  health: ChannelHealth;
  /** Channels linked from a phone (`capabilities.linking` is `qr`): the QR payload or pairing code while waiting. */
  link?: ChannelLinkState;
}

export interface ChannelsApiOptions {
  token: string;
  /** Every channel, the web socket first; read on each request so health is current. */
  channels: () => readonly ChannelAdapter[];
  /** Starts a phone-linked channel again after the platform ended its link, so a new QR code appears. */
  relink: (name: string) => Promise<void>;
  /** MCP tool servers and their state, listed beside the channels. */
  toolServers?: () => McpServerStatus[];
  logger: Logger;
}

/** A link that stays down until a person acts: relinking is only offered then. */
const STOPPED_LINK = new Set(['needs_relink', 'replaced']);

/**
 * The admin view's channel list, behind the gateway token like `/api/pairing`:
 * `GET /api/channels` lists each channel's health and link state, `POST
 * /api/channels/<name>/relink` starts a phone link (a channel declaring `linking: 'qr'`) again
 * once the platform ended it. A QR payload
 * is a live credential for linking a phone, so it is never cached and never sent elsewhere.
 * Returns false for other paths.
 */
export function createChannelsApi(options: ChannelsApiOptions) {
  const expected = digest(options.token);

  /** The link state of a channel that declares phone linking; undefined for every other channel. */
  const linkStateOf = (channel: ChannelAdapter | undefined): ChannelLinkState | undefined =>
    channel?.capabilities.linking === 'qr' ? channel.linkState?.() : undefined;

  const view = (channel: ChannelAdapter): ChannelView => {
    const link = linkStateOf(channel);
    return { name: channel.name, health: channel.health(), ...(link ? { link } : {}) };
  };

  return (request: IncomingMessage, response: ServerResponse): boolean => {
    const path = requestPath(request);
    if (path === undefined) return false;
    if (path !== CHANNELS_API_PATH && !path.startsWith(`${CHANNELS_API_PATH}/`)) return false;
    request.resume();
    if (!authorized(request.headers.authorization, expected)) {
      sendJson(response, 401, {
        error: { code: 'unauthorized', message: 'Send the gateway token as a Bearer token.' },
      });
      return true;
    }
    if (path === CHANNELS_API_PATH && request.method === 'GET') {
      sendJson(response, 200, {
        channels: options.channels().map(view),
        toolServers: options.toolServers?.() ?? [],
      });
      return true;
    }
    const relink = /^\/api\/channels\/([^/]+)\/relink$/.exec(path);
    if (!relink || request.method !== 'POST') {
      sendJson(response, 404, {
        error: {
          code: 'not_found',
          message: 'Use GET /api/channels or POST /api/channels/<name>/relink.',
        },
      });
      return true;
    }
    const name = decodePathSegment(relink[1]!);
    if (name === undefined) {
      sendJson(response, 400, {
        error: {
          code: 'bad_request',
          message: 'The channel name in the path is not valid percent-encoding.',
        },
      });
      return true;
    }
    const linkState = linkStateOf(options.channels().find((candidate) => candidate.name === name));
    if (!linkState) {
      sendJson(response, 404, {
        error: { code: 'not_found', message: `No channel named ${name} is linked from a phone.` },
      });
      return true;
    }
    const status = linkState.status;
    if (!STOPPED_LINK.has(status)) {
      sendJson(response, 409, {
        error: { code: 'conflict', message: `The ${name} link is ${status}; there is nothing to relink.` },
      });
      return true;
    }
    options.logger.info({ channel: name, status }, 'relink requested in the web admin view');
    options.relink(name).then(
      () => {
        const channel = options.channels().find((candidate) => candidate.name === name);
        sendJson(response, 202, { channel: channel ? view(channel) : { name } });
      },
      (error: unknown) => {
        options.logger.error({ channel: name, err: error }, 'relink failed');
        sendJson(response, 503, {
          error: {
            code: 'channel_unavailable',
            message: error instanceof Error ? error.message : 'The channel could not start.',
          },
        });
      },
    );
    return true;
  };
}
