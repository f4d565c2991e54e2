import type { IncomingMessage, ServerResponse } from 'node:http';
import { mentionsIn, userPayload } from './discord-fixtures.ts';
import { refuseMessageBody } from './discord-message-rules.ts';
import {
  DISCORD_DEFAULT_UPLOAD_LIMIT_BYTES,
  readDiscordMultipart,
  type UploadedDiscordFile,
} from './fake-discord-cdn.ts';
import type { FakeGateway } from './fake-discord-gateway.ts';
import type { FakeDiscordWorld } from './fake-discord-world.ts';

export interface RecordedDiscordRequest {
  method: string;
  /** Path after `/api/v10`, e.g. `/channels/123/messages`. */
  path: string;
  query: string;
  body: unknown;
  authorization?: string;
  status: number;
  at: number;
}

export interface RateLimitInjection {
  method: string;
  path: string | RegExp;
  retryAfterSeconds: number;
  /** How many matching requests get the 429 (default 1). */
  times?: number;
  global?: boolean;
}

/** Who Discord would notify for a message, following its `allowed_mentions` rules. */
export interface MessagePings {
  everyone: boolean;
  userIds: string[];
  roleIds: string[];
  repliedUser: boolean;
}

export interface FakeDiscordMessage {
  id: string;
  channelId: string;
  content: string;
  /** Every content the message had, first the one it was created with. */
  history: string[];
  replyToMessageId?: string;
  pings: MessagePings;
  /** Set when the message answers an interaction (slash command). */
  interactionToken?: string;
  deleted?: boolean;
  /** Files uploaded with the message (multipart `files[n]`), as received. */
  files?: UploadedDiscordFile[];
}

export interface RegisteredCommand {
  scope: 'global' | { guildId: string };
  commands: Array<Record<string, unknown>>;
}

interface AllowedMentions {
  parse?: string[];
  users?: string[];
  roles?: string[];
  replied_user?: boolean;
}

export function pingsOf(
  content: string,
  allowed: AllowedMentions | undefined,
  isReply: boolean,
): MessagePings {
  const mentions = mentionsIn(content);
  const parse = allowed ? (allowed.parse ?? []) : ['everyone', 'users', 'roles'];
  return {
    everyone: parse.includes('everyone') && mentions.everyone,
    userIds: parse.includes('users')
      ? mentions.userIds
      : mentions.userIds.filter((id) => allowed?.users?.includes(id)),
    roleIds: parse.includes('roles')
      ? mentions.roleIds
      : mentions.roleIds.filter((id) => allowed?.roles?.includes(id)),
    repliedUser: isReply && (allowed ? allowed.replied_user === true : true),
  };
}

/** The REST half of the fake: the routes a bot uses, a request log with bodies, and 429 injection. */
export function createFakeDiscordRest(options: {
  world: FakeDiscordWorld;
  gateway: FakeGateway;
  token: string;
  gatewayUrl: () => string;
}) {
  const { world, gateway } = options;
  const requests: RecordedDiscordRequest[] = [];
  const sent: FakeDiscordMessage[] = [];
  const rateLimits: Array<RateLimitInjection & { remaining: number }> = [];
  /** Channels where the bot may not post (Discord answers 403 Missing Permissions). */
  const refused = new Set<string>();
  const commands: RegisteredCommand[] = [];
  const interactionCallbacks: Array<{ interactionId: string; token: string; body: unknown }> = [];

  /** Nonces of the bot's messages with `enforce_nonce`: Discord checks them for a few minutes. */
  const enforcedNonces = new Map<string, { messageId: string; at: number }>();
  /** Files of the request being routed (routing is synchronous, so one slot is enough). */
  let uploads: UploadedDiscordFile[] = [];

  function createBotMessage(input: {
    channelId: string;
    body: Record<string, unknown>;
    interactionToken?: string;
  }): Record<string, unknown> {
    const nonce = input.body.nonce;
    const enforced =
      input.body.enforce_nonce === true && (typeof nonce === 'string' || typeof nonce === 'number');
    if (enforced) {
      const earlier = enforcedNonces.get(String(nonce));
      const existing = earlier && world.messages.get(earlier.messageId);
      if (earlier && existing && Date.now() - earlier.at < NONCE_WINDOW_MS) return existing;
    }
    const content = typeof input.body.content === 'string' ? input.body.content : '';
    const reference = input.body.message_reference as { message_id?: string } | undefined;
    const payload = world.messagePayload({
      channelId: input.channelId,
      author: world.bot,
      content,
      ...(reference?.message_id && world.messages.has(reference.message_id)
        ? { replyToMessageId: reference.message_id }
        : {}),
    });
    if (input.interactionToken) payload.webhook_id = world.applicationId;
    if (nonce !== undefined) payload.nonce = nonce;
    if (enforced) enforcedNonces.set(String(nonce), { messageId: payload.id as string, at: Date.now() });
    if (uploads.length > 0) {
      payload.attachments = uploads.map((file, index) => ({
        id: `${payload.id as string}${index}`,
        filename: file.filename,
        size: file.bytes.byteLength,
        url: `https://cdn.discordapp.invalid/attachments/${input.channelId}/${payload.id as string}/${file.filename}`,
        ...(file.contentType ? { content_type: file.contentType } : {}),
      }));
    }
    world.messages.set(payload.id as string, payload);
    sent.push({
      ...(uploads.length > 0 ? { files: uploads } : {}),
      id: payload.id as string,
      channelId: input.channelId,
      content,
      history: [content],
      ...(reference?.message_id ? { replyToMessageId: reference.message_id } : {}),
      pings: pingsOf(
        content,
        input.body.allowed_mentions as AllowedMentions | undefined,
        reference?.message_id !== undefined,
      ),
      ...(input.interactionToken ? { interactionToken: input.interactionToken } : {}),
    });
    // Discord echoes the bot's own messages on the gateway; adapters must ignore them.
    gateway.dispatch('MESSAGE_CREATE', payload);
    return payload;
  }

  function editBotMessage(messageId: string, body: Record<string, unknown>) {
    const payload = world.messages.get(messageId);
    const record = sent.find((message) => message.id === messageId);
    if (!payload || !record) return undefined;
    if (typeof body.content === 'string') {
      payload.content = body.content;
      payload.edited_timestamp = world.isoNow();
      record.content = body.content;
      record.history.push(body.content);
      // Discord tells the bot about its own edits too; adapters must ignore them.
      gateway.dispatch('MESSAGE_UPDATE', { ...payload });
    }
    return payload;
  }

  function deleteBotMessage(messageId: string): [number, unknown] {
    const record = sent.find((message) => message.id === messageId);
    if (!record || record.deleted) return [404, { message: 'Unknown Message', code: 10008 }];
    record.deleted = true;
    const payload = world.messages.get(messageId);
    world.messages.delete(messageId);
    if (payload) gateway.dispatch('MESSAGE_DELETE', deletePayloadOf(payload));
    return [204, undefined];
  }

  /**
   * `GET /channels/{id}/messages` as Discord answers it: at most one of `before`, `after`,
   * `around`; `limit` 1–100 (default 50); the page nearest the anchor, newest first.
   */
  function listMessages(channelId: string, query: URLSearchParams): [number, unknown] {
    const limit = Number(query.get('limit') ?? 50);
    if (!Number.isInteger(limit) || limit < 1 || limit > 100) {
      return [400, { message: 'Invalid Form Body', code: 50035, errors: { limit: 'between 1 and 100' } }];
    }
    const anchors = ['before', 'after', 'around'].filter((key) => query.has(key));
    if (anchors.length > 1) return [400, { message: 'Invalid Form Body', code: 50035 }];
    const inChannel = [...world.messages.values()]
      .filter((message) => message.channel_id === channelId)
      .sort((a, b) => compareSnowflakes(a.id as string, b.id as string));
    const anchor = query.get(anchors[0] ?? '') ?? '';
    let page: Record<string, unknown>[];
    if (anchors[0] === 'after') {
      page = inChannel
        .filter((message) => compareSnowflakes(message.id as string, anchor) > 0)
        .slice(0, limit);
    } else if (anchors[0] === 'before') {
      page = inChannel.filter((message) => compareSnowflakes(message.id as string, anchor) < 0).slice(-limit);
    } else if (anchors[0] === 'around') {
      const index = inChannel.findIndex((message) => compareSnowflakes(message.id as string, anchor) >= 0);
      const start = Math.max(0, (index === -1 ? inChannel.length : index) - Math.floor(limit / 2));
      page = inChannel.slice(start, start + limit);
    } else {
      page = inChannel.slice(-limit);
    }
    return [200, page.reverse()];
  }

  function route(
    method: string,
    path: string,
    body: Record<string, unknown>,
    query: URLSearchParams,
  ): [number, unknown] {
    const parts = path
      .split('/')
      .filter(Boolean)
      .map((part) => decodeURIComponent(part));
    const [first, second, third, fourth, fifth] = parts;
    if (method === 'GET' && (path === '/gateway/bot' || path === '/gateway')) {
      return [
        200,
        {
          url: options.gatewayUrl(),
          shards: 1,
          session_start_limit: { total: 1000, remaining: 1000, reset_after: 86_400_000, max_concurrency: 1 },
        },
      ];
    }
    if (first === 'users' && method === 'GET' && second) {
      const user = second === '@me' ? world.bot : world.users.get(second);
      return user ? [200, userPayload(user)] : [404, { message: 'Unknown User', code: 10013 }];
    }
    if (method === 'POST' && path === '/users/@me/channels') {
      const user = world.users.get(String(body.recipient_id));
      return user ? [200, world.directChannelFor(user)] : [400, { message: 'Unknown User', code: 10013 }];
    }
    if (first === 'channels' && second) {
      const channel = world.channels.get(second);
      if (!channel) return [404, { message: 'Unknown Channel', code: 10003 }];
      if (method === 'GET' && !third) return [200, channel];
      if (method === 'POST' && third === 'typing') return [204, undefined];
      if (method === 'GET' && third === 'messages' && !fourth) return listMessages(second, query);
      if (method === 'POST' && third === 'messages' && !fourth) {
        if (refused.has(second)) return [403, { message: 'Missing Permissions', code: 50013 }];
        const refusal = refuseMessageBody('create', body, uploads);
        if (refusal) return refusal;
        return [200, createBotMessage({ channelId: second, body })];
      }
      if (third === 'messages' && fourth) {
        if (method === 'DELETE') return deleteBotMessage(fourth);
        if (method === 'PATCH') {
          const refusal = refuseMessageBody('edit', body, uploads);
          if (refusal) return refusal;
          const edited = editBotMessage(fourth, body);
          return edited ? [200, edited] : [404, { message: 'Unknown Message', code: 10008 }];
        }
        const message = world.messages.get(fourth);
        if (method === 'GET' && message) return [200, message];
        return [404, { message: 'Unknown Message', code: 10008 }];
      }
    }
    if (first === 'applications' && second === world.applicationId) {
      const scope: RegisteredCommand['scope'] = third === 'guilds' && fourth ? { guildId: fourth } : 'global';
      if ((third === 'commands' || fifth === 'commands') && method === 'PUT') {
        const list = (Array.isArray(body) ? body : []) as Array<Record<string, unknown>>;
        const registered = list.map((command) => ({
          id: world.nextId(),
          application_id: world.applicationId,
          version: world.nextId(),
          type: 1,
          options: [],
          default_member_permissions: null,
          ...command,
        }));
        commands.push({ scope, commands: registered });
        return [200, registered];
      }
      if ((third === 'commands' || fifth === 'commands') && method === 'GET') {
        return [
          200,
          commands.findLast((entry) => JSON.stringify(entry.scope) === JSON.stringify(scope))?.commands ?? [],
        ];
      }
    }
    if (first === 'interactions' && second && third && fourth === 'callback' && method === 'POST') {
      interactionCallbacks.push({ interactionId: second, token: third, body });
      return [204, undefined];
    }
    if (first === 'webhooks' && second === world.applicationId && third) {
      const channelId = interactionChannels.get(third);
      if (!channelId) return [404, { message: 'Unknown Webhook', code: 10015 }];
      const original = sent.find((message) => message.interactionToken === third);
      if (method === 'PATCH' || method === 'POST') {
        const refusal = refuseMessageBody(method === 'PATCH' ? 'edit' : 'followup', body, uploads);
        if (refusal) return refusal;
      }
      if (method === 'PATCH' && fourth === 'messages' && fifth === '@original') {
        if (original) return [200, editBotMessage(original.id, body)];
        return [200, createBotMessage({ channelId, body, interactionToken: third })];
      }
      const ownMessage = sent.find((message) => message.id === fifth && message.interactionToken === third);
      if (fourth === 'messages' && ownMessage) {
        if (method === 'PATCH') return [200, editBotMessage(ownMessage.id, body)];
        if (method === 'DELETE') return deleteBotMessage(ownMessage.id);
      }
      if (method === 'POST' && !fourth) {
        return [200, createBotMessage({ channelId, body, interactionToken: third })];
      }
    }
    return [404, { message: `The fake has no route for ${method} ${path}.`, code: 0 }];
  }

  const interactionChannels = new Map<string, string>();

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', 'http://fake.invalid');
    const method = (request.method ?? 'GET').toUpperCase();
    const path = decodeURIComponent(url.pathname).replace(/^\/api\/v10/, '');
    const rawBytes = await readBody(request);
    const contentType = request.headers['content-type'] ?? '';
    let body: unknown;
    let files: UploadedDiscordFile[] = [];
    if (contentType.includes('multipart/form-data')) {
      ({ body, files } = await readDiscordMultipart(rawBytes, contentType));
    } else if (rawBytes.length > 0) {
      const raw = rawBytes.toString('utf8');
      body = contentType.includes('application/json') ? JSON.parse(raw) : raw;
    }
    const authorization = request.headers.authorization;
    const record: RecordedDiscordRequest = {
      method,
      path,
      query: url.search,
      body,
      ...(authorization ? { authorization } : {}),
      status: 0,
      at: Date.now(),
    };
    requests.push(record);
    const finish = (status: number, payload: unknown, headers: Record<string, string> = {}) => {
      record.status = status;
      response.writeHead(status, {
        ...(payload === undefined ? {} : { 'content-type': 'application/json' }),
        ...headers,
      });
      response.end(payload === undefined ? undefined : JSON.stringify(payload));
    };

    const limit = rateLimits.find(
      (entry) =>
        entry.remaining > 0 &&
        entry.method === method &&
        (typeof entry.path === 'string' ? entry.path === path : entry.path.test(path)),
    );
    if (limit) {
      limit.remaining -= 1;
      return finish(
        429,
        {
          message: 'You are being rate limited.',
          retry_after: limit.retryAfterSeconds,
          global: !!limit.global,
        },
        {
          'retry-after': String(limit.retryAfterSeconds),
          'x-ratelimit-limit': '5',
          'x-ratelimit-remaining': '0',
          'x-ratelimit-reset-after': String(limit.retryAfterSeconds),
          'x-ratelimit-bucket': 'fake-bucket',
          'x-ratelimit-scope': limit.global ? 'global' : 'user',
          ...(limit.global ? { 'x-ratelimit-global': 'true' } : {}),
        },
      );
    }
    const needsToken = !path.startsWith('/interactions/') && !path.startsWith('/webhooks/');
    if (needsToken && authorization !== `Bot ${options.token}`) {
      return finish(401, { message: '401: Unauthorized', code: 0 });
    }
    if (typeof body === 'string') {
      return finish(400, { message: 'The fake accepts JSON or multipart bodies only.', code: 50035 });
    }
    // "The default file upload size limit is 10 MiB" applies to each file, not to the request.
    if (files.some((file) => file.bytes.byteLength > DISCORD_DEFAULT_UPLOAD_LIMIT_BYTES)) {
      return finish(413, { message: 'Request entity too large', code: 40005 });
    }
    uploads = files;
    try {
      const [status, payload] = route(
        method,
        path,
        (body ?? {}) as Record<string, unknown>,
        url.searchParams,
      );
      finish(status, payload);
    } finally {
      uploads = [];
    }
  }

  return {
    requests,
    sent,
    commands,
    interactionCallbacks,
    handle,
    setSendsRefused(channelId: string, refuse: boolean): void {
      if (refuse) refused.add(channelId);
      else refused.delete(channelId);
    },
    rateLimitNext(injection: RateLimitInjection): void {
      rateLimits.push({ ...injection, remaining: injection.times ?? 1 });
    },
    /** Lets webhook routes (interaction replies) find the channel an interaction came from. */
    registerInteraction(token: string, channelId: string): void {
      interactionChannels.set(token, channelId);
    },
  };
}

/**
 * Discord: "If true and nonce is present, it will be checked for uniqueness in the past few
 * minutes. If another message was created by the same author with the same nonce, that message
 * will be returned and no new message will be created." The fake has one author (the bot).
 */
const NONCE_WINDOW_MS = 5 * 60_000;

function compareSnowflakes(a: string, b: string): number {
  const difference = BigInt(a) - BigInt(b);
  return difference === 0n ? 0 : difference > 0n ? 1 : -1;
}

function readBody(request: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks)));
    request.on('error', reject);
  });
}

/** MESSAGE_DELETE carries only the ids: Discord does not say what the message was or who deleted it. */
export function deletePayloadOf(message: Record<string, unknown>): Record<string, unknown> {
  return {
    id: message.id,
    channel_id: message.channel_id,
    ...(message.guild_id ? { guild_id: message.guild_id } : {}),
  };
}
