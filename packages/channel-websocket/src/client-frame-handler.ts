import {
  type CancelSink,
  type ClientFrame,
  type ErrorCode,
  errorCodeSchema,
  type IntakeResult,
  type IntentInput,
  type IntentSink,
  MAX_INTENT_TEXT_CHARS,
  MAX_WEB_ATTACHMENTS,
  NexusError,
  type ServerFrame,
  toNexusError,
  WEB_SOCKET_CLOSE_CODES,
  WEB_SOCKET_PROTOCOL_VERSION,
} from '@nexus/protocol';
import type { ClientConnection } from './client-connection.ts';
import type { ConnectionRegistry } from './connection-registry.ts';
import type { ReplayLog } from './replay-log.ts';
import { type WebMessageToIntentOptions, webIntentId, webMessageToIntent } from './to-intent.ts';
import type { ResolvedWebSocketChannelOptions } from './web-socket-channel-options.ts';
import type { WebUpload } from './web-uploads.ts';

type HelloFrame = Extract<ClientFrame, { type: 'hello' }>;
type CancelFrame = Extract<ClientFrame, { type: 'cancel' }>;
/** The frames that become intents: a new message, an edit, a delete, a regenerate or a choice of version. */
type ChangeFrame = Extract<ClientFrame, { type: 'message' | 'edit' | 'delete' | 'regenerate' | 'choose' }>;

export interface ClientFrameHandlerOptions {
  options: ResolvedWebSocketChannelOptions;
  replayLog: ReplayLog;
  registry: ConnectionRegistry;
  /** The intake while the channel accepts work; undefined once it is stopping. */
  sink: () => IntentSink | undefined;
  /** Core's Stop, when it has one (see `ChannelStartOptions.cancel`). */
  cancel: () => CancelSink | undefined;
}

/** Refusals worth retrying later with the same frame; the rest will fail the same way again. */
const RETRYABLE_CODES: ReadonlySet<ErrorCode> = new Set([
  'rate_limited',
  'shutting_down',
  'timeout',
  'channel_unavailable',
  'memory_unavailable',
  'model_unavailable',
  'internal',
]);

/**
 * What each valid client frame means: hello/welcome, message/edit/delete → Intent → accepted,
 * resume → replay.
 * `accepted` is sent only when core took the intent durably (see IntakeResult).
 */
export class ClientFrameHandler {
  readonly #settings: ResolvedWebSocketChannelOptions;
  readonly #replayLog: ReplayLog;
  readonly #registry: ConnectionRegistry;
  readonly #sink: () => IntentSink | undefined;
  readonly #cancel: () => CancelSink | undefined;

  constructor(options: ClientFrameHandlerOptions) {
    this.#settings = options.options;
    this.#replayLog = options.replayLog;
    this.#registry = options.registry;
    this.#sink = options.sink;
    this.#cancel = options.cancel;
  }

  handle(connection: ClientConnection, frame: ClientFrame): void {
    if (frame.type === 'ping') {
      connection.sendFrame({ type: 'pong', ...(frame.t === undefined ? {} : { t: frame.t }) });
      return;
    }
    if (frame.type === 'hello') {
      this.#hello(connection, frame);
      return;
    }
    const clientId = connection.clientId;
    if (clientId === undefined) {
      connection.sendError('bad_frame', 'send hello first', false);
      return;
    }
    if (frame.type === 'resume') this.#resume(connection, clientId, frame);
    else if (frame.type === 'cancel') this.#stopReply(connection, clientId, frame);
    else this.#change(connection, clientId, frame);
  }

  #hello(connection: ClientConnection, frame: HelloFrame): void {
    if (connection.clientId !== undefined) {
      connection.sendError('bad_frame', 'hello was already received on this connection', false);
      return;
    }
    const clientId = connection.boundClientId ?? frame.clientId;
    connection.greet(clientId, frame.displayName);
    this.#registry.assign(connection, clientId);
    let notice: string | undefined;
    try {
      notice = this.#settings.notice?.();
    } catch (error) {
      connection.logger.warn({ err: error }, 'notice callback failed');
    }
    connection.sendFrame({
      type: 'welcome',
      v: WEB_SOCKET_PROTOCOL_VERSION,
      connectionId: connection.id,
      heartbeatMs: this.#settings.heartbeatMs,
      limits: {
        maxFrameBytes: this.#settings.maxPayloadBytes,
        maxTextChars: MAX_INTENT_TEXT_CHARS,
        messagesPerMinute: this.#settings.messagesPerMinute,
        ...(this.#settings.uploads === undefined
          ? {}
          : {
              maxUploadBytes: this.#settings.maxUploadBytes,
              maxAttachments: MAX_WEB_ATTACHMENTS,
              voiceNotes: this.#settings.voiceNotes,
            }),
      },
      ...(notice === undefined ? {} : { notice }),
    });
    if (frame.resume !== undefined) this.#resume(connection, clientId, frame.resume);
  }

  #resume(
    connection: ClientConnection,
    clientId: string,
    request: { conversationId: string; lastSeq: number },
  ) {
    const { conversationId, lastSeq } = request;
    if (this.#replayLog.claim(conversationId, clientId) === 'forbidden') {
      connection.sendError('unauthorized', 'this conversation belongs to another client', false);
      return;
    }
    const result = this.#replayLog.replay(conversationId, lastSeq);
    for (const frame of result.frames) connection.outbound.send(frame);
    connection.sendFrame({
      type: 'resumed',
      conversationId,
      replayed: result.frames.length,
      complete: result.complete,
      lastSeq: result.lastSeq,
    });
  }

  /** Stop: only the conversation's own client may stop its reply; answered with `cancelled`. */
  #stopReply(connection: ClientConnection, clientId: string, frame: CancelFrame): void {
    const { conversationId, replyId, targetClientMessageId } = frame;
    if (replyId === undefined && targetClientMessageId === undefined) {
      connection.sendError('bad_frame', 'cancel: name the reply (replyId) or the message it answers', false);
      return;
    }
    if (this.#replayLog.claim(conversationId, clientId) === 'forbidden') {
      connection.sendError('unauthorized', 'this conversation belongs to another client', false);
      return;
    }
    const channel = this.#settings.channelName;
    const shown = frame.shownChars === undefined ? {} : { shownChars: frame.shownChars };
    let answer: ReturnType<CancelSink> = 'not_running';
    try {
      const cancel = this.#cancel();
      if (cancel !== undefined)
        answer =
          replyId !== undefined
            ? cancel({ channel, conversationId, replyId, ...shown })
            : cancel({
                channel,
                conversationId,
                intentId: webIntentId(channel, clientId, targetClientMessageId ?? ''),
                ...shown,
              });
    } catch (error) {
      connection.logger.error({ err: error, conversationId }, 'stopping a reply failed');
    }
    connection.sendFrame({
      type: 'cancelled',
      conversationId,
      ...(replyId === undefined ? { targetClientMessageId } : { replyId }),
      stopping: answer === 'stopping',
    });
  }

  #change(connection: ClientConnection, clientId: string, frame: ChangeFrame): void {
    const { clientMessageId } = frame;
    if ('text' in frame && frame.text.length > MAX_INTENT_TEXT_CHARS) {
      const message = `text is longer than ${MAX_INTENT_TEXT_CHARS} characters`;
      connection.sendError('payload_too_large', message, false, clientMessageId);
      return;
    }
    const attachments = frame.type === 'message' ? (frame.attachments ?? []) : [];
    if (frame.type === 'message' && frame.text.trim() === '' && attachments.length === 0) {
      connection.sendError('bad_frame', 'message: send text, attachments or both', false, clientMessageId);
      return;
    }
    if (attachments.length > 0 && this.#settings.uploads === undefined) {
      const message = 'this server takes no attachments from web clients';
      connection.sendError('attachment_unsupported', message, false, clientMessageId);
      return;
    }
    const verdict = connection.checkMessageRate();
    if (verdict === 'close') {
      connection.close(WEB_SOCKET_CLOSE_CODES.rateLimited, 'message rate limit exceeded');
      return;
    }
    if (verdict === 'reject') {
      const message = `more than ${this.#settings.messagesPerMinute} messages per minute; retry later`;
      connection.sendError('rate_limited', message, true, clientMessageId);
      return;
    }
    const sink = this.#sink();
    if (sink === undefined) {
      connection.sendError(
        'shutting_down',
        'the server is shutting down; retry shortly',
        true,
        clientMessageId,
      );
      return;
    }
    if (this.#replayLog.claim(frame.conversationId, clientId) === 'forbidden') {
      connection.sendError(
        'unauthorized',
        'this conversation belongs to another client',
        false,
        clientMessageId,
      );
      return;
    }
    void this.#submit(connection, sink, clientId, frame);
  }

  /**
   * The uploads a message names, each checked to exist and to belong to this client; one that
   * does not gets the whole message refused (nothing is sent half).
   */
  async #resolveUploads(clientId: string, frame: ChangeFrame) {
    const uploads = this.#settings.uploads;
    if (frame.type !== 'message' || uploads === undefined || !frame.attachments?.length) return [];
    return Promise.all(
      frame.attachments.map(async (attachment) => {
        const upload: WebUpload | undefined = await uploads.describe({
          uploadId: attachment.uploadId,
          clientId,
        });
        if (upload === undefined) {
          throw new NexusError({
            code: 'attachment_unavailable',
            message:
              'an attachment was not found: it expired or was uploaded by another client; upload it again',
          });
        }
        return {
          upload,
          voice: attachment.voice === true,
          ...(attachment.name === undefined ? {} : { name: attachment.name }),
        };
      }),
    );
  }

  async #submit(connection: ClientConnection, sink: IntentSink, clientId: string, frame: ChangeFrame) {
    const { clientMessageId, conversationId } = frame;
    const logger = connection.logger.child({ conversationId });
    let result: IntakeResult;
    let intent: IntentInput | undefined;
    let uploads: NonNullable<WebMessageToIntentOptions['uploads']> = [];
    try {
      uploads = await this.#resolveUploads(clientId, frame);
      intent = webMessageToIntent({
        channelName: this.#settings.channelName,
        clientId,
        ...(connection.displayName === undefined ? {} : { displayName: connection.displayName }),
        frame,
        uploads,
        receivedAt: new Date(this.#settings.now()),
      });
      result = await sink(intent);
    } catch (thrown) {
      const error = toNexusError(thrown);
      if (error.code === 'internal') logger.error({ err: thrown, intentId: intent?.id }, 'intake failed');
      else logger.info({ code: error.code, intentId: intent?.id }, 'message refused');
      const message = error.code === 'internal' ? 'the server could not take this message' : error.message;
      connection.sendError(
        error.code,
        message,
        error.retryable || error.code === 'internal',
        clientMessageId,
      );
      return;
    }
    if (result.status === 'rejected') {
      const parsed = errorCodeSchema.safeParse(result.code);
      const code: ErrorCode = parsed.success ? parsed.data : 'invalid_intent';
      logger.info({ intentId: intent.id, code: result.code }, 'intake rejected the message');
      connection.sendError(
        code,
        result.message,
        result.retryable ?? RETRYABLE_CODES.has(code),
        clientMessageId,
      );
      return;
    }
    logger.debug({ intentId: intent.id, status: result.status }, 'intent taken');
    connection.sendFrame({
      type: 'accepted',
      clientMessageId,
      conversationId,
      duplicate: result.status === 'duplicate',
    });
    if (frame.type === 'message' && result.status !== 'duplicate')
      this.#showElsewhere(connection, clientId, frame, uploads);
  }

  /** The person's other tabs and devices show the message now, so its reply streams under it. */
  #showElsewhere(
    sender: ClientConnection,
    clientId: string,
    frame: Extract<ChangeFrame, { type: 'message' }>,
    uploads: NonNullable<WebMessageToIntentOptions['uploads']>,
  ): void {
    const connections = this.#registry.ofClient(clientId);
    // Most people have one tab open: then there is nobody to tell and no frame to build.
    if (connections.size <= 1) return;
    const attachments = uploads.map(({ upload, voice, name }) => ({
      kind: voice && upload.kind === 'audio' ? ('voice' as const) : upload.kind,
      ...((name ?? upload.name) ? { name: name ?? upload.name } : {}),
      sizeBytes: upload.sizeBytes,
    }));
    const sent: ServerFrame = {
      type: 'sent',
      conversationId: frame.conversationId,
      clientMessageId: frame.clientMessageId,
      text: frame.text,
      ...(attachments.length > 0 ? { attachments } : {}),
    };
    for (const connection of connections) if (connection !== sender) connection.sendFrame(sent);
  }
}
