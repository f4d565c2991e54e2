import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import type { Message, Update, UserFromGetMe } from 'grammy/types';
import { BotApiMethods, type BotMessage, type RecordedApiCall } from './bot-api-methods.ts';
import {
  buildEditedMessage,
  buildMessage,
  type EditMessageOptions,
  type FakeTelegramFile,
  type PushMessageOptions,
} from './build-message.ts';
import { type FakeTelegramFailure, failureBody } from './fake-failure.ts';
import { readMultipartPayload } from './multipart-payload.ts';
import { UpdateQueue } from './update-queue.ts';

export interface FakeTelegramOptions {
  /** Defaults to `7000000001:fake-telegram-token`; requests with another token get 401. */
  token?: string;
  botUsername?: string;
  /** Clock for the timestamps in the call log (default `performance.now`). */
  now?: () => number;
  /** Set false for long benchmarks so the call log does not grow. */
  recordCalls?: boolean;
}

export interface PushedMessage {
  updateId: number;
  messageId: number;
  message: Message;
}

/**
 * A local stand-in for the Telegram Bot API, so the real grammY client runs unmodified in tests
 * and benchmarks (`client.apiRoot = fake.apiRoot`). It keeps the state a chat adapter relies
 * on: the update queue with offsets and long polls, the bot's messages (HTML parsed and length
 * checked as Telegram does), files, webhooks, and failures injected on demand.
 */
export interface FakeTelegram {
  readonly apiRoot: string;
  readonly token: string;
  readonly botInfo: UserFromGetMe;
  /** Queues a raw update; `update_id` is assigned unless given (to replay an old one). */
  pushUpdate(update: Omit<Update, 'update_id'> & { update_id?: number }): number;
  /**
   * Sends an update that was already delivered once more, to the next poll whatever its offset
   * (or to the webhook): what Telegram does when a confirmation or webhook answer got lost.
   */
  replayUpdate(updateId: number): void;
  /** Queues a message a person sent, built as Telegram would build it. */
  pushMessage(options: PushMessageOptions): PushedMessage;
  /**
   * A person edits a message they sent earlier: queues an `edited_message` update carrying the
   * whole message with its new text or caption and `edit_date`. (Telegram sends bots nothing
   * when a message is deleted in a private chat or group, so there is no delete counterpart.)
   */
  editMessage(options: EditMessageOptions): PushedMessage;
  /**
   * The update types the bot last asked for (`allowed_updates` of getUpdates or setWebhook);
   * undefined until it asked. Updates of other types are dropped, as Telegram does.
   */
  readonly allowedUpdates: readonly string[] | undefined;
  /** Registers a file for `getFile` and download. */
  addFile(options: { content: Uint8Array; filePath?: string }): FakeTelegramFile;
  /** Every call the fake received, in order (unless `recordCalls: false`). */
  calls(method?: string): RecordedApiCall[];
  /** The bot's messages in sending order, with their current (edited) text. */
  botMessages(chatId?: number): BotMessage[];
  /**
   * The next `times` calls of `method` (only those whose payload satisfies `when`, if given)
   * fail this way instead of running.
   */
  failNext(
    method: string,
    failure: FakeTelegramFailure,
    options?: { times?: number; when?: (payload: Record<string, unknown>) => boolean },
  ): void;
  /** Every later call that targets this chat answers 403 "bot was blocked by the user". */
  blockChat(chatId: number): void;
  /** Who `getChatMember` reports as the group's administrators (everyone else is a plain member). */
  setChatAdministrators(chatId: number, userIds: readonly number[]): void;
  unblockChat(chatId: number): void;
  /**
   * Open long polls are never answered from now on, nor are the next `newRequests` polls
   * (default: all until `resumeGetUpdates`): a connection that died without an error.
   */
  stallGetUpdates(options?: { newRequests?: number }): void;
  resumeGetUpdates(): void;
  /** When `getUpdates` first returned this update (the fake's clock). */
  updateServedAt(updateId: number): number | undefined;
  /** Updates not yet confirmed by a later getUpdates offset, or not yet answered by the webhook. */
  readonly pendingUpdateCount: number;
  /** Calls `listener` with every recorded call as it arrives; returns the unsubscribe function. */
  onApiCall(listener: (call: RecordedApiCall) => void): () => void;
  /** Resolves with the first truthy `probe()` result, re-checked after every call and update. */
  waitFor<T>(
    probe: () => T | undefined | null | false,
    options?: { timeoutMs?: number; what?: string },
  ): Promise<T>;
  close(): Promise<void>;
}

export async function startFakeTelegram(options: FakeTelegramOptions = {}): Promise<FakeTelegram> {
  const token = options.token ?? '7000000001:fake-telegram-token';
  const now = options.now ?? (() => performance.now());
  const botId = Number(token.split(':', 1)[0]) || 7000000001;
  const botInfo: UserFromGetMe = {
    id: botId,
    is_bot: true,
    first_name: 'Nexus',
    username: options.botUsername ?? 'nexus_test_bot',
    can_join_groups: true,
    can_read_all_group_messages: false,
    supports_inline_queries: false,
    can_connect_to_business: false,
    has_main_web_app: false,
    has_topics_enabled: false,
    allows_users_to_create_topics: false,
    can_manage_bots: false,
    supports_join_request_queries: false,
  };
  const listeners = new Set<(call: RecordedApiCall) => void>();
  const changeListeners = new Set<() => void>();
  const notifyChange = () => {
    for (const listener of changeListeners) listener();
  };
  const failures = new Map<
    string,
    { failure: FakeTelegramFailure; when?: (payload: Record<string, unknown>) => boolean }[]
  >();
  const takeFailure = (method: string, payload: Record<string, unknown>): FakeTelegramFailure | undefined => {
    const list = failures.get(method) ?? [];
    const index = list.findIndex((entry) => entry.when === undefined || entry.when(payload));
    if (index === -1) return undefined;
    return list.splice(index, 1)[0]?.failure;
  };
  const queue = new UpdateQueue({ now, writeJson });
  const methods = new BotApiMethods({ botInfo, recordCalls: options.recordCalls ?? true });
  let nextUpdateId = 100_001;
  // Telegram keeps the last `allowed_updates` a bot asked for; an empty list means "the default".
  let allowedUpdates: string[] | undefined;
  const rememberAllowedUpdates = (value: unknown) => {
    const list = typeof value === 'string' ? safeJsonArray(value) : value;
    if (Array.isArray(list)) allowedUpdates = list.map(String);
  };
  const isAllowed = (update: Update): boolean => {
    const kind = Object.keys(update).find((key) => key !== 'update_id');
    if (kind === undefined) return false;
    if (allowedUpdates === undefined || allowedUpdates.length === 0) return !OPT_IN_UPDATES.has(kind);
    return allowedUpdates.includes(kind);
  };
  let webhook: { url: string; secretToken?: string } | undefined;
  let webhookDelivery: Promise<void> | undefined;

  const record = (call: RecordedApiCall) => {
    methods.record(call);
    for (const listener of listeners) listener(call);
    notifyChange();
  };

  let delivering = false;
  /** Updates taken from the queue for the webhook and not yet answered with 2xx. */
  let webhookUnanswered = 0;
  const deliverToWebhook = () => {
    if (delivering) return;
    delivering = true;
    webhookDelivery = (async () => {
      try {
        let failures = 0;
        while (webhook && queue.pendingCount > 0 && failures < 50) {
          const target = webhook;
          const updates = queue.take();
          webhookUnanswered += updates.length;
          for (const [index, update] of updates.entries()) {
            if (await postUpdate(target, update)) {
              webhookUnanswered--;
              notifyChange();
              continue;
            }
            const rest = updates.slice(index);
            webhookUnanswered -= rest.length;
            for (const again of rest) queue.push(again);
            failures++;
            await new Promise((resolve) => setTimeout(resolve, 50));
            break;
          }
        }
      } finally {
        delivering = false;
        notifyChange();
      }
    })();
  };

  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      if (!response.headersSent)
        writeJson(response, 500, { ok: false, error_code: 500, description: String(error) });
    });
  });

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', 'http://fake');
    const fileMatch = /^\/file\/bot([^/]+)\/(.+)$/.exec(url.pathname);
    if (fileMatch) {
      const file =
        fileMatch[1] === token ? methods.fileContent(decodeURIComponent(fileMatch[2]!)) : undefined;
      if (!file) return writeJson(response, 404, { ok: false, error_code: 404, description: 'Not Found' });
      response.writeHead(200, {
        'content-type': 'application/octet-stream',
        'content-length': file.byteLength,
      });
      response.end(file);
      return;
    }
    const match = /^\/bot([^/]+)\/([A-Za-z]+)$/.exec(url.pathname);
    if (!match) return writeJson(response, 404, { ok: false, error_code: 404, description: 'Not Found' });
    if (match[1] !== token)
      return writeJson(response, 401, { ok: false, error_code: 401, description: 'Unauthorized' });
    const method = match[2]!;
    const payload = await readPayload(request, url);
    const at = now();
    const failure = takeFailure(method, payload);
    if (failure) {
      if (failure.kind === 'drop_connection') {
        record({ method, payload, at, status: 0, description: 'connection dropped' });
        request.socket.destroy();
        return;
      }
      const body = failureBody(failure);
      record({ method, payload, at, status: body.error_code, description: body.description });
      return writeJson(response, body.error_code, body);
    }
    if (method === 'getUpdates' || method === 'setWebhook') rememberAllowedUpdates(payload.allowed_updates);
    if (method === 'getUpdates') {
      record({ method, payload, at, status: 200 });
      if (webhook) {
        const description =
          "Conflict: can't use getUpdates method while webhook is active; use deleteWebhook to delete the webhook first";
        return writeJson(response, 409, { ok: false, error_code: 409, description });
      }
      queue.poll({
        offset: Number(payload.offset ?? 0),
        limit: Number(payload.limit ?? 100),
        timeoutSeconds: Number(payload.timeout ?? 0),
        response,
      });
      notifyChange();
      return;
    }
    if (method === 'setWebhook') {
      webhook = { url: String(payload.url) };
      if (typeof payload.secret_token === 'string') webhook.secretToken = payload.secret_token;
      record({ method, payload, at, status: 200 });
      writeJson(response, 200, { ok: true, result: true });
      deliverToWebhook();
      return;
    }
    if (method === 'deleteWebhook') {
      webhook = undefined;
      if (payload.drop_pending_updates === true) queue.clear();
      record({ method, payload, at, status: 200 });
      return writeJson(response, 200, { ok: true, result: true });
    }
    const outcome = methods.call(method, payload);
    if (outcome.ok) {
      record({ method, payload, at, status: 200 });
      return writeJson(response, 200, outcome);
    }
    record({ method, payload, at, status: outcome.error_code, description: outcome.description });
    writeJson(response, outcome.error_code, outcome);
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  const history = new Map<number, Update>();
  const pushUpdate: FakeTelegram['pushUpdate'] = (update) => {
    const updateId = update.update_id ?? nextUpdateId++;
    nextUpdateId = Math.max(nextUpdateId, updateId + 1);
    const full = { ...update, update_id: updateId } as Update;
    history.set(updateId, full);
    if (!isAllowed(full)) {
      notifyChange();
      return updateId;
    }
    queue.push(full);
    if (webhook) deliverToWebhook();
    notifyChange();
    return updateId;
  };

  return {
    apiRoot: `http://127.0.0.1:${port}`,
    token,
    botInfo,
    pushUpdate,
    replayUpdate(updateId) {
      const update = history.get(updateId);
      if (!update) throw new Error(`fake Telegram: no update ${updateId} to replay`);
      queue.replay(update);
      if (webhook) deliverToWebhook();
      notifyChange();
    },
    pushMessage(push) {
      const messageId = methods.nextMessageId(push.chat.id);
      methods.rememberChat(push.chat);
      const message = buildMessage({
        push,
        messageId,
        date: Math.floor(Date.now() / 1000),
        findMessage: (id) => methods.findMessage(push.chat.id, id),
      });
      methods.storeMessage(message);
      const updateId = pushUpdate({ message } as Omit<Update, 'update_id'>);
      return { updateId, messageId, message };
    },
    editMessage(edit) {
      const original = methods.findMessage(edit.chatId, edit.messageId);
      if (!original) throw new Error(`fake Telegram: no message ${edit.messageId} in chat ${edit.chatId}`);
      const message = buildEditedMessage(original, edit);
      methods.storeMessage(message);
      const updateId = pushUpdate({ edited_message: message } as Omit<Update, 'update_id'>);
      return { updateId, messageId: edit.messageId, message };
    },
    get allowedUpdates() {
      return allowedUpdates;
    },
    addFile: (file) => methods.addFile(file),
    calls: (method) => methods.calls(method),
    botMessages: (chatId) => methods.botMessages(chatId),
    failNext(method, failure, failOptions = {}) {
      const list = failures.get(method) ?? [];
      for (let index = 0; index < (failOptions.times ?? 1); index++) {
        list.push(failOptions.when ? { failure, when: failOptions.when } : { failure });
      }
      failures.set(method, list);
    },
    blockChat: (chatId) => methods.blockChat(chatId),
    setChatAdministrators: (chatId, userIds) => methods.setChatAdministrators(chatId, userIds),
    unblockChat: (chatId) => methods.unblockChat(chatId),
    stallGetUpdates(stallOptions = {}) {
      queue.stall(stallOptions.newRequests ?? Number.POSITIVE_INFINITY);
    },
    resumeGetUpdates: () => queue.resume(),
    updateServedAt: (updateId) => queue.servedAt(updateId),
    get pendingUpdateCount() {
      return queue.pendingCount + webhookUnanswered;
    },
    onApiCall(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    waitFor(probe, waitOptions = {}) {
      return waitForProbe(probe, changeListeners, waitOptions);
    },
    async close() {
      webhook = undefined;
      queue.endAll();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await webhookDelivery;
    },
  };
}

/** Update types Telegram sends only to bots that list them in `allowed_updates`. */
const OPT_IN_UPDATES = new Set(['chat_member', 'message_reaction', 'message_reaction_count']);

function safeJsonArray(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

async function postUpdate(target: { url: string; secretToken?: string }, update: Update): Promise<boolean> {
  try {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (target.secretToken) headers['x-telegram-bot-api-secret-token'] = target.secretToken;
    const response = await fetch(target.url, { method: 'POST', headers, body: JSON.stringify(update) });
    await response.arrayBuffer();
    return response.ok;
  } catch {
    return false;
  }
}

function waitForProbe<T>(
  probe: () => T | undefined | null | false,
  changeListeners: Set<() => void>,
  options: { timeoutMs?: number; what?: string },
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const check = () => {
      const value = probe();
      if (value === undefined || value === null || value === false) return;
      finish();
      resolve(value);
    };
    const timer = setTimeout(() => {
      finish();
      reject(new Error(`fake Telegram: timed out waiting for ${options.what ?? 'a condition'}`));
    }, options.timeoutMs ?? 5_000);
    const finish = () => {
      clearTimeout(timer);
      changeListeners.delete(check);
    };
    changeListeners.add(check);
    check();
  });
}

async function readPayload(request: IncomingMessage, url: URL): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const raw = Buffer.concat(chunks);
  const contentType = request.headers['content-type'] ?? '';
  if (contentType.includes('multipart/form-data')) {
    return { ...Object.fromEntries(url.searchParams), ...(await readMultipartPayload(raw, contentType)) };
  }
  const body = raw.toString('utf8');
  const payload: Record<string, unknown> = Object.fromEntries(url.searchParams);
  if (body.length === 0) return payload;
  if (contentType.includes('application/json')) {
    return { ...payload, ...(JSON.parse(body) as Record<string, unknown>) };
  }
  return { ...payload, ...Object.fromEntries(new URLSearchParams(body)) };
}

function writeJson(response: ServerResponse, status: number, body: unknown): void {
  if (response.headersSent || response.destroyed) return;
  const text = JSON.stringify(body);
  response.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
  });
  response.end(text);
}
