import type { ServerFrame } from '@nexus/protocol';
import type { BackoffOptions } from './backoff.ts';
import { ChatConnection, type ConnectionStatus } from './chat-connection.ts';
import type { ConversationSummary } from './conversation-index.ts';
import {
  addUserMessage,
  applyServerFrame,
  type ChatMessage,
  type ConversationState,
  chooseAnswer,
  emptyConversation,
  markPending,
  regenerateAnswer,
  reviseUserMessage,
  type SentAttachment,
  stopStreaming,
  streamingReply,
} from './conversation-state.ts';
import { ConversationSync } from './conversation-sync.ts';
import { httpServerConversations, type ServerConversations } from './server-conversations.ts';
import type { ChatStorage } from './storage.ts';
import { isTokenRejected } from './token-check.ts';
import { type UploadedFile, type UploadFileOptions, uploadFile } from './upload-file.ts';
import { deleteServerConversation } from './web-conversations-api.ts';

/** A file uploaded for the next message; `voice` marks a recording made in the page. */
export interface MessageAttachment {
  upload: UploadedFile;
  voice?: boolean;
}

export interface ChatSnapshot {
  conversation: ConversationState;
  /** Every conversation stored in this browser, most recently active first. */
  conversations: ConversationSummary[];
  connection: ConnectionStatus;
  /** From `welcome.notice`: something the operator must act on, e.g. configure a model provider. */
  notice?: string | undefined;
  /** From `welcome.limits`, once known. */
  maxTextChars?: number;
  /** From `welcome.limits`: absent when the server takes no files. */
  maxUploadBytes?: number | undefined;
  maxAttachments?: number | undefined;
  /** The gateway transcribes voice notes: the composer offers the microphone. */
  voiceNotes?: boolean;
}

export type SendResult = { ok: true; clientMessageId: string } | { ok: false; reason: string };

export interface ChatSessionOptions {
  url: string;
  /** A token client's credential; unset in a signed-in browser, whose session cookie goes instead. */
  token?: string;
  storage: ChatStorage;
  randomId: () => string;
  createWebSocket?: (url: string, protocols: string[]) => WebSocket;
  /** Defaults to asking the gateway over HTTP (see token-check.ts). */
  isTokenRejected?: () => Promise<boolean>;
  backoff?: BackoffOptions;
  random?: () => number;
  /** Storage writes are coalesced (a reply streams many deltas). Default 300 ms. */
  persistDelayMs?: number;
  /** Defaults to `POST /api/web/uploads` on the gateway (see upload-file.ts). */
  uploadFile?: (options: UploadFileOptions) => Promise<UploadedFile>;
  /** Defaults to `DELETE /api/web/conversations/:id` on the gateway (see web-conversations-api.ts). */
  deleteServerConversation?: (conversationId: string) => Promise<void>;
  /** Defaults to the gateway's `/api/web/conversations` routes (see server-conversations.ts). */
  serverConversations?: ServerConversations;
}

/**
 * The chat as the page sees it: the conversation (restored from storage, updated by server
 * frames, saved back), the connection status and the welcome notice, as immutable snapshots.
 */
export class ChatSession {
  readonly #options: ChatSessionOptions;
  readonly #connection: ChatConnection;
  readonly #listeners = new Set<(snapshot: ChatSnapshot) => void>();
  #snapshot: ChatSnapshot;
  #persistTimer: ReturnType<typeof setTimeout> | undefined;
  /** The last frame that asks for an answer (message, edit, regenerate): Stop names it before the reply's first words. */
  #answerRequest: { conversationId: string; clientMessageId: string } | undefined;
  readonly #server: ServerConversations;
  readonly #sync: ConversationSync;

  constructor(options: ChatSessionOptions) {
    this.#options = options;
    const conversation = options.storage.readConversation() ?? emptyConversation(options.randomId());
    this.#connection = new ChatConnection({
      url: options.url,
      ...(options.token === undefined ? {} : { token: options.token }),
      clientId: options.storage.clientId(),
      resumePoint: () => {
        const { conversationId, lastSeq, messages } = this.#snapshot.conversation;
        // A conversation with nothing in it has nothing to replay.
        return messages.length > 0 ? { conversationId, lastSeq } : undefined;
      },
      onFrame: (frame) => this.#receive(frame),
      onStatus: (connection) => this.#update({ connection }),
      createWebSocket: options.createWebSocket,
      isTokenRejected:
        options.isTokenRejected ??
        (() =>
          isTokenRejected({
            url: options.url,
            ...(options.token === undefined ? {} : { token: options.token }),
          })),
      backoff: options.backoff,
      random: options.random,
    });
    this.#snapshot = {
      conversation,
      conversations: options.storage.listConversations(),
      connection: this.#connection.status,
    };
    this.#server =
      options.serverConversations ??
      httpServerConversations({
        url: options.url,
        ...(options.token === undefined ? {} : { token: options.token }),
        clientId: () => options.storage.clientId(),
      });
    this.#sync = this.#createSync();
  }

  /** The gateway keeps the person's conversations; storage is the copy for first paint and offline. */
  #createSync(): ConversationSync {
    const storage = this.#options.storage;
    const listChanged = () => this.#update({ conversations: storage.listConversations() });
    return new ConversationSync({
      storage,
      server: this.#server,
      shown: () => this.#snapshot.conversation,
      show: (conversation, summary) => {
        this.#update({ conversation });
        this.flush();
        // The gateway's times, not the moment this browser read it, order the list.
        storage.upsertSummary(summary);
        listChanged();
      },
      listChanged,
      shownDeleted: () => {
        clearTimeout(this.#persistTimer);
        this.#persistTimer = undefined;
        this.#update({ conversation: emptyConversation(this.#options.randomId()) });
        this.flush();
      },
    });
  }

  /** Brings the list and the shown conversation in step with the gateway (after each connect). */
  syncConversations(): Promise<void> {
    return this.#sync.sync();
  }

  get snapshot(): ChatSnapshot {
    return this.#snapshot;
  }

  subscribe(listener: (snapshot: ChatSnapshot) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Connects, and queues again the messages a previous page left unsent. */
  start(): void {
    this.#sendPending();
    this.#connection.start();
  }

  #sendPending(): void {
    const { conversationId, messages } = this.#snapshot.conversation;
    for (const message of messages) {
      if (message.role === 'user' && message.state === 'pending') {
        this.#connection.sendMessage(outgoingOf(message, conversationId));
      }
    }
  }

  stop(): void {
    this.#connection.stop();
    this.flush();
  }

  /** Uploads one file for the next message; rejects with a message fit to show. */
  upload(file: Blob, options: { name?: string; onProgress?: (fraction: number) => void } = {}) {
    const limit = this.#snapshot.maxUploadBytes;
    if (limit === undefined) return Promise.reject(new Error('This server does not take files.'));
    if (file.size > limit) {
      const megabytes = Math.round((limit / (1024 * 1024)) * 10) / 10;
      return Promise.reject(new Error(`This file is larger than the ${megabytes} MB the server accepts.`));
    }
    return (this.#options.uploadFile ?? uploadFile)({
      url: this.#options.url,
      ...(this.#options.token === undefined ? {} : { token: this.#options.token }),
      clientId: this.#options.storage.clientId(),
      file,
      ...options,
    });
  }

  send(text: string, attachments: readonly MessageAttachment[] = []): SendResult {
    const trimmed = text.trim();
    if (trimmed === '' && attachments.length === 0) return { ok: false, reason: 'Type a message first.' };
    const limit = this.#snapshot.maxTextChars;
    if (limit !== undefined && trimmed.length > limit) {
      return { ok: false, reason: `This message is too long (limit ${limit} characters).` };
    }
    const clientMessageId = this.#options.randomId();
    const sent: SentAttachment[] = attachments.map(({ upload, voice }) => ({
      kind: voice && upload.kind === 'audio' ? 'voice' : upload.kind,
      uploadId: upload.uploadId,
      sizeBytes: upload.sizeBytes,
      ...(upload.name === undefined ? {} : { name: upload.name }),
    }));
    const conversation = addUserMessage(this.#snapshot.conversation, {
      clientMessageId,
      text: trimmed,
      attachments: sent,
    });
    this.#update({ conversation });
    const message = conversation.messages.at(-1)!;
    this.#connection.sendMessage(outgoingOf(message, conversation.conversationId));
    this.#answerRequest = { conversationId: conversation.conversationId, clientMessageId };
    return { ok: true, clientMessageId };
  }

  /** Replaces the text of one of the person's sent messages; the server answers it again. */
  edit(targetClientMessageId: string, text: string): SendResult {
    const trimmed = text.trim();
    if (trimmed === '') return { ok: false, reason: 'An edited message needs text; delete it instead.' };
    const target = this.#ownSentMessage(targetClientMessageId);
    if (target === undefined) return { ok: false, reason: 'Only messages the server took can be edited.' };
    if (trimmed === target.text) return { ok: true, clientMessageId: targetClientMessageId };
    const clientMessageId = this.#options.randomId();
    const before = this.#snapshot.conversation;
    this.#update({
      conversation: reviseUserMessage(before, { targetClientMessageId, kind: 'edit', text: trimmed }),
    });
    this.#connection.sendMessage({
      type: 'edit',
      clientMessageId,
      conversationId: before.conversationId,
      targetClientMessageId,
      text: trimmed,
    });
    this.#answerRequest = { conversationId: before.conversationId, clientMessageId };
    return { ok: true, clientMessageId };
  }

  /** Withdraws one of the person's sent messages. */
  delete(targetClientMessageId: string): SendResult {
    if (this.#ownSentMessage(targetClientMessageId) === undefined) {
      return { ok: false, reason: 'Only messages the server took can be deleted.' };
    }
    const clientMessageId = this.#options.randomId();
    const before = this.#snapshot.conversation;
    this.#update({ conversation: reviseUserMessage(before, { targetClientMessageId, kind: 'delete' }) });
    this.#connection.sendMessage({
      type: 'delete',
      clientMessageId,
      conversationId: before.conversationId,
      targetClientMessageId,
    });
    return { ok: true, clientMessageId };
  }

  /**
   * Another answer to one of the person's sent messages (Regenerate on the newest reply, Try
   * again on an error); it arrives as a new version, shown in place of the earlier one.
   */
  regenerate(targetClientMessageId: string): SendResult {
    const target = this.#ownSentMessage(targetClientMessageId);
    if (target === undefined)
      return { ok: false, reason: 'Only messages the server took can be answered again.' };
    const clientMessageId = this.#options.randomId();
    const before = this.#snapshot.conversation;
    this.#update({ conversation: regenerateAnswer(before, targetClientMessageId) });
    this.#connection.sendMessage({
      type: 'regenerate',
      clientMessageId,
      conversationId: before.conversationId,
      targetClientMessageId,
      text: target.text,
    });
    this.#answerRequest = { conversationId: before.conversationId, clientMessageId };
    return { ok: true, clientMessageId };
  }

  /** Shows another version of a message's answer and makes it the one the model sees next. */
  chooseVersion(targetClientMessageId: string, replyId: string): SendResult {
    if (this.#ownSentMessage(targetClientMessageId) === undefined) {
      return { ok: false, reason: 'Only answers to messages the server took have versions.' };
    }
    const clientMessageId = this.#options.randomId();
    const before = this.#snapshot.conversation;
    this.#update({ conversation: chooseAnswer(before, targetClientMessageId, replyId) });
    this.#connection.sendMessage({
      type: 'choose',
      clientMessageId,
      conversationId: before.conversationId,
      targetClientMessageId,
      replyId,
    });
    return { ok: true, clientMessageId };
  }

  #ownSentMessage(clientMessageId: string): ChatMessage | undefined {
    return this.#snapshot.conversation.messages.find(
      (message) =>
        message.id === clientMessageId &&
        message.role === 'user' &&
        message.state === 'sent' &&
        !message.deleted,
    );
  }

  /** Sends a failed message again under its original id, so the server still answers it once. */
  retry(clientMessageId: string): void {
    const before = this.#snapshot.conversation;
    const message = before.messages.find((entry) => entry.id === clientMessageId && entry.role === 'user');
    if (message === undefined || message.state !== 'failed') return;
    this.#update({ conversation: markPending(before, clientMessageId) });
    this.#connection.sendMessage(outgoingOf(message, before.conversationId));
  }

  newConversation(): void {
    this.flush();
    this.#update({ conversation: emptyConversation(this.#options.randomId()) });
    this.flush();
  }

  /**
   * Shows another stored conversation: its unsent messages are queued again and the gateway is
   * asked for the events it missed while another conversation was shown.
   */
  switchConversation(conversationId: string): boolean {
    if (conversationId === this.#snapshot.conversation.conversationId) return true;
    const listed = this.#snapshot.conversations.some((summary) => summary.conversationId === conversationId);
    // Listed by the gateway but never opened here: shown empty until its history arrives.
    const stored =
      this.#options.storage.readConversation(conversationId) ??
      (listed ? { conversationId, lastSeq: 0, messages: [] } : undefined);
    if (stored === undefined) return false;
    this.flush();
    this.#update({ conversation: { ...stored } });
    this.flush();
    this.#sendPending();
    if (stored.messages.length > 0) this.#connection.resume({ conversationId, lastSeq: stored.lastSeq });
    this.#sync.load(conversationId).catch(() => {
      // Offline: the stored copy stays; the next connect reads it again.
    });
    return true;
  }

  /**
   * Puts the page of history before what is shown above it (from the gateway). False when there
   * was nothing earlier, or another conversation was opened meanwhile; throws when out of reach.
   */
  showEarlier(): Promise<boolean> {
    return this.#sync.loadEarlier(this.#snapshot.conversation.conversationId);
  }

  /** Stored conversations whose title or any message has every word of `query`. */
  searchConversations(query: string): ConversationSummary[] {
    return this.#options.storage.searchConversations(query);
  }

  renameConversation(conversationId: string, title: string): boolean {
    const renamed = this.#options.storage.renameConversation(conversationId, title);
    this.#update({ conversations: this.#options.storage.listConversations() });
    if (renamed)
      this.#sync.pushRenames().catch(() => {
        // Offline: storage keeps the rename as pending; the next connect tells the gateway.
      });
    return renamed;
  }

  /**
   * Deletes a conversation on the gateway first, then in this browser, so a failure leaves both
   * (rejects with a message fit to show). Deleting the one shown opens a new conversation.
   */
  async deleteConversation(conversationId: string): Promise<void> {
    await (
      this.#options.deleteServerConversation ??
      ((id: string) =>
        deleteServerConversation(
          {
            url: this.#options.url,
            ...(this.#options.token === undefined ? {} : { token: this.#options.token }),
            clientId: this.#options.storage.clientId(),
          },
          id,
        ))
    )(conversationId);
    this.#options.storage.removeConversation(conversationId);
    if (conversationId === this.#snapshot.conversation.conversationId) {
      clearTimeout(this.#persistTimer);
      this.#persistTimer = undefined;
      this.#update({ conversation: emptyConversation(this.#options.randomId()) });
      this.flush();
    }
    this.#update({ conversations: this.#options.storage.listConversations() });
  }

  /**
   * Whether Stop has something to stop: a reply streaming, or the gateway working on the answer
   * to the person's last message (typing, a status) before its first words.
   */
  canStop(): boolean {
    const conversation = this.#snapshot.conversation;
    if (streamingReply(conversation) !== undefined) return true;
    return (
      conversation.activity !== undefined &&
      this.#answerRequest?.conversationId === conversation.conversationId
    );
  }

  /**
   * Stop: the reply being written ends here with the text shown so far, and the gateway is told to
   * abort the model and keep exactly that much (see stopStreaming). Before the reply's first words
   * the gateway is told which message's answer to stop.
   */
  stopReply(): void {
    const conversation = this.#snapshot.conversation;
    const { conversationId } = conversation;
    const reply = streamingReply(conversation);
    if (reply !== undefined) {
      this.#update({ conversation: stopStreaming(conversation) });
      this.#connection.cancel({ conversationId, replyId: reply.id, shownChars: reply.text.length });
      return;
    }
    const request = this.#answerRequest;
    if (request === undefined || request.conversationId !== conversationId) return;
    this.#update({ conversation: { ...conversation, activity: undefined } });
    this.#connection.cancel({
      conversationId,
      targetClientMessageId: request.clientMessageId,
      shownChars: 0,
    });
  }

  reconnectNow(): void {
    this.#connection.reconnectNow();
  }

  /** Writes the conversation to storage now (call on page hide; a reload must not lose it). */
  flush(): void {
    clearTimeout(this.#persistTimer);
    this.#persistTimer = undefined;
    const { conversationId, lastSeq, messages } = this.#snapshot.conversation;
    this.#options.storage.writeConversation({ conversationId, lastSeq, messages });
    const conversations = this.#options.storage.listConversations();
    if (!sameSummaries(conversations, this.#snapshot.conversations)) this.#update({ conversations });
  }

  #receive(frame: ServerFrame): void {
    if (frame.type === 'welcome') {
      this.#update({
        notice: frame.notice,
        maxTextChars: frame.limits.maxTextChars,
        maxUploadBytes: frame.limits.maxUploadBytes,
        maxAttachments: frame.limits.maxAttachments,
        voiceNotes: frame.limits.voiceNotes === true,
      });
      void this.#sync.sync();
      return;
    }
    if (frame.type === 'conversation') {
      this.#sync.changed(frame.change, frame.conversation);
      return;
    }
    const conversation = applyServerFrame(this.#snapshot.conversation, frame);
    if (conversation !== this.#snapshot.conversation) this.#update({ conversation });
  }

  #update(change: Partial<ChatSnapshot>): void {
    const previous = this.#snapshot;
    this.#snapshot = { ...previous, ...change };
    if (this.#snapshot.conversation !== previous.conversation) this.#schedulePersist();
    for (const listener of this.#listeners) listener(this.#snapshot);
  }

  #schedulePersist(): void {
    if (this.#persistTimer !== undefined) return;
    this.#persistTimer = setTimeout(() => this.flush(), this.#options.persistDelayMs ?? 300);
  }
}

function sameSummaries(a: readonly ConversationSummary[], b: readonly ConversationSummary[]): boolean {
  return (
    a.length === b.length &&
    a.every((entry, index) => {
      const other = b[index]!;
      return (
        entry.conversationId === other.conversationId &&
        entry.title === other.title &&
        entry.updatedAt === other.updatedAt
      );
    })
  );
}

/** The `message` frame for a user message, with the uploads it carries. */
function outgoingOf(message: ChatMessage, conversationId: string) {
  const attachments = (message.attachments ?? []).flatMap((attachment) =>
    attachment.uploadId === undefined
      ? []
      : [
          {
            uploadId: attachment.uploadId,
            ...(attachment.name === undefined ? {} : { name: attachment.name }),
            ...(attachment.kind === 'voice' ? { voice: true } : {}),
          },
        ],
  );
  return {
    clientMessageId: message.id,
    conversationId,
    text: message.text,
    ...(attachments.length > 0 ? { attachments } : {}),
  };
}
