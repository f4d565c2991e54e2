import {
  collectReply,
  keepTyping,
  mediaNotSentNote,
  mediaTooLargeNote,
  renderWhatsAppText,
  splitMessage,
} from '@nexus/channel-kit';
import { type DeliverOptions, type Logger, NexusError } from '@nexus/protocol';
import type { AnyMessageContent } from '@whiskeysockets/baileys';
import type { ConnectionSupervisor } from './connection-supervisor.ts';
import { whatsAppMediaContent } from './send-media.ts';
import type { MessageStore } from './sqlite-message-store.ts';
import { createStatusReaction } from './status-reaction.ts';
import { parseWhatsAppIntentId } from './to-intent.ts';
import type { WhatsAppSocket } from './whatsapp-socket.ts';

export interface DeliverWhatsAppReplyOptions {
  supervisor: Pick<ConnectionSupervisor, 'openSocket' | 'waitForOpen'>;
  messageStore: MessageStore;
  logger: Logger;
  /** Minimum gap between any two sends of this account (ban mitigation). */
  sendPacingMs: number;
  /** WhatsApp shows `composing` for about 10 s; refresh a little sooner. */
  typingIntervalMs: number;
  chunkLength: number;
  /** How long a reply waits for a closed link to come back before giving up. */
  reconnectWaitMs: number;
}

const APOLOGY = 'Sorry, something went wrong while answering. Please try again in a moment.';

/**
 * Delivers one reply stream: `composing` kept alive while the turn runs, Markdown rendered for
 * WhatsApp, cut into ~4000-character messages, sent one at a time with pacing across the whole
 * account, each sent message kept for retry receipts. A send that fails because the link dropped
 * waits for the reconnect and is tried once more.
 */
export function createDeliverWhatsAppReply(options: DeliverWhatsAppReplyOptions) {
  const { supervisor, messageStore, logger } = options;
  let sendChain: Promise<unknown> = Promise.resolve();
  let lastSendAt = 0;

  async function socketFor(abortSignal?: AbortSignal): Promise<WhatsAppSocket> {
    const socket =
      supervisor.openSocket() ??
      (await supervisor.waitForOpen({
        timeoutMs: options.reconnectWaitMs,
        ...(abortSignal ? { abortSignal } : {}),
      }));
    if (!socket) {
      throw new NexusError({
        code: 'channel_unavailable',
        message: 'WhatsApp is not connected',
        retryable: true,
      });
    }
    return socket;
  }

  async function sendOnce(
    jid: string,
    content: string | AnyMessageContent,
    quoted: ReturnType<MessageStore['find']>,
    abortSignal?: AbortSignal,
  ): Promise<void> {
    const waitMs = lastSendAt + options.sendPacingMs - Date.now();
    if (waitMs > 0) await new Promise((resolve) => setTimeout(resolve, waitMs));
    let socket = await socketFor(abortSignal);
    const message = typeof content === 'string' ? { text: content } : content;
    const send = () => socket.sendMessage(jid, message, quoted ? { quoted } : undefined);
    let sent: Awaited<ReturnType<WhatsAppSocket['sendMessage']>>;
    try {
      sent = await send();
    } catch (error) {
      logger.warn({ err: error }, 'whatsapp: send failed, retrying after reconnect');
      socket = await socketFor(abortSignal);
      sent = await send();
    } finally {
      lastSendAt = Date.now();
    }
    if (sent) messageStore.put(sent);
  }

  /** Serialises sends across the account so pacing holds between different conversations too. */
  function paced(task: () => Promise<void>): Promise<void> {
    const result = sendChain.then(task);
    sendChain = result.catch(() => {});
    return result;
  }

  return async function deliver({ conversation, events, abortSignal }: DeliverOptions): Promise<void> {
    const jid = conversation.conversationId;
    const typing = keepTyping({
      intervalMs: options.typingIntervalMs,
      send: async () => {
        await supervisor.openSocket()?.sendPresenceUpdate('composing', jid);
      },
      onError: (error) => logger.debug({ err: error }, 'whatsapp: typing update failed'),
    });
    const original = parseWhatsAppIntentId(conversation.intentId);
    const answered = original
      ? messageStore.find({ remoteJid: original.remoteJid, id: original.messageId })
      : undefined;
    const status = createStatusReaction({
      key: answered?.key,
      // Outside the send pacing: a reaction adds no message to the chat, and taking a pacing slot
      // (a second each) for it and for its removal would delay every reply queued behind it.
      send: async (content) => {
        await (await socketFor(abortSignal)).sendMessage(jid, content);
      },
      logger,
    });
    let reply: Awaited<ReturnType<typeof collectReply>>;
    try {
      reply = await collectReply(status.watch(events));
    } finally {
      typing.stop();
    }
    for (const error of reply.errors) {
      logger.warn({ code: error.code, retryable: error.retryable }, 'whatsapp: reply ended with an error');
    }
    const text = reply.text.trim() === '' ? (reply.errors.length > 0 ? APOLOGY : '') : reply.text;
    const chunks =
      text === '' ? [] : splitMessage(renderWhatsAppText(text), { maxLength: options.chunkLength });
    // In groups the answer quotes the question so everyone sees what it answers.
    const quoted = conversation.kind === 'group' ? answered : undefined;
    try {
      for (const [index, chunk] of chunks.entries()) {
        if (abortSignal?.aborted) break;
        await paced(() => sendOnce(jid, chunk, index === 0 ? quoted : undefined, abortSignal));
      }
    } finally {
      // The answer is there (or will not come): the "restoring" reaction goes.
      await status.clear();
    }
    // Files follow the text, each as its own media message (Baileys encrypts and uploads it).
    for (const event of reply.media) {
      if (abortSignal?.aborted) break;
      const prepared = whatsAppMediaContent(event.media, event.caption);
      const content =
        prepared.status === 'ready'
          ? prepared.content
          : renderWhatsAppText(mediaTooLargeNote(event.media, prepared.limitBytes, 'WhatsApp'));
      try {
        await paced(() => sendOnce(jid, content, undefined, abortSignal));
      } catch (error) {
        logger.warn({ err: error, name: event.media.name }, 'whatsapp: file not sent');
        await paced(() => sendOnce(jid, mediaNotSentNote(event.media, 'WhatsApp'), undefined, abortSignal));
      }
    }
    await supervisor
      .openSocket()
      ?.sendPresenceUpdate('paused', jid)
      .catch(() => {});
  };
}
