import {
  createEditStreamer,
  type EditStreamer,
  keepTyping,
  mediaNotSentNote,
  mediaTooLargeNote,
  type TypingHandle,
} from '@nexus/channel-kit';
import type { Logger, ReplyEvent, ReplyMediaEvent } from '@nexus/protocol';
import { DISCORD_CAPABILITIES } from './capabilities.ts';
import { DiscordChannelError } from './discord-channel-error.ts';
import type { DiscordReplyTarget } from './discord-reply-target.ts';
import { DISCORD_MAX_UPLOAD_BYTES } from './send-discord-file.ts';

export interface DeliverDiscordReplyOptions {
  target: DiscordReplyTarget;
  events: AsyncIterable<ReplyEvent>;
  render: (markdown: string) => string;
  streamEditIntervalMs: number;
  typingIntervalMs: number;
  logger: Logger;
  now: () => number;
  abortSignal?: AbortSignal;
}

interface ActiveReply {
  replyId: string | undefined;
  text: string;
  streamer: EditStreamer;
}

/**
 * Streams one turn into Discord: typing while the agent works, the reply edited in place at a
 * throttled rate and continued in new messages past 2000 characters, a status line shown until
 * the first words arrive, and errors turned into a short notice instead of silence.
 */
export async function deliverDiscordReply(options: DeliverDiscordReplyOptions): Promise<void> {
  const { target, logger } = options;
  let typing: TypingHandle | undefined;
  let active: ActiveReply | undefined;
  let messagesSent = 0;
  let nextIndex = 0;
  const errors: Array<Extract<ReplyEvent, { type: 'error' }>> = [];
  /** Files wait for the text they belong to, then follow it as attachments. */
  let pendingMedia: ReplyMediaEvent[] = [];

  const startTyping = () => {
    typing ??= keepTyping({
      send: () => target.typing(),
      intervalMs: options.typingIntervalMs,
      onError: (error) => logger.debug({ err: error }, 'discord typing indicator failed'),
    });
  };

  const open = (replyId: string | undefined): ActiveReply => {
    // Each reply of the turn continues after the messages of the previous one.
    const base = nextIndex;
    const streamer = createEditStreamer({
      maxLength: DISCORD_CAPABILITIES.maxMessageChars,
      minIntervalMs: options.streamEditIntervalMs,
      render: options.render,
      now: options.now,
      send: async (text, index) => {
        const id = await target.send(text, base + index);
        messagesSent += 1;
        return id;
      },
      edit: (messageId, text) => target.edit(messageId, text),
      remove: (messageId) => target.remove(messageId),
      onError: (error) => logger.warn({ err: error }, 'discord streaming update failed'),
    });
    return { replyId, text: '', streamer };
  };

  const close = async (reply: ActiveReply, finalText: string) => {
    const ids = await reply.streamer.finish(finalText);
    nextIndex += ids.length;
  };

  const sendPendingMedia = async () => {
    const media = pendingMedia;
    pendingMedia = [];
    for (const event of media) {
      if (options.abortSignal?.aborted) return;
      if (event.media.sizeBytes > DISCORD_MAX_UPLOAD_BYTES) {
        await close(open(undefined), mediaTooLargeNote(event.media, DISCORD_MAX_UPLOAD_BYTES, 'Discord'));
        continue;
      }
      try {
        await target.sendFile(event.media, event.caption);
        messagesSent += 1;
      } catch (error) {
        logger.warn({ error: String(error), name: event.media.name }, 'discord file not sent');
        await close(open(undefined), mediaNotSentNote(event.media, 'Discord'));
      }
    }
  };

  try {
    for await (const event of options.events) {
      if (options.abortSignal?.aborted) break;
      switch (event.type) {
        case 'typing':
          startTyping();
          break;
        case 'status':
          startTyping();
          if (!active || active.text === '') {
            active ??= open(undefined);
            active.streamer.push(`*${event.text.replace(/\*/g, '')}*`);
          }
          break;
        case 'reply.start':
          startTyping();
          if (active && active.replyId === undefined) active.replyId = event.replyId;
          else if (active?.replyId !== event.replyId) {
            if (active) await close(active, active.text);
            active = open(event.replyId);
          }
          break;
        case 'reply.delta':
          startTyping();
          if (!active || (active.replyId !== undefined && active.replyId !== event.replyId)) {
            if (active) await close(active, active.text);
            active = open(event.replyId);
          }
          active.replyId = event.replyId;
          active.text += event.text;
          active.streamer.push(active.text);
          break;
        case 'reply.end':
          if (active && (active.replyId === undefined || active.replyId === event.replyId)) {
            const reply = active;
            active = undefined;
            await close(reply, event.text);
          } else {
            const reply = open(event.replyId);
            await close(reply, event.text);
          }
          await sendPendingMedia();
          break;
        case 'reply.media':
          pendingMedia.push(event);
          break;
        case 'error':
          errors.push(event);
          break;
      }
    }
    if (active) {
      // The stream ended without reply.end: keep what arrived (or clear a lone status line).
      const reply = active;
      active = undefined;
      await close(reply, reply.text);
    }
    await sendPendingMedia();
    if (errors.length > 0 && !options.abortSignal?.aborted) {
      const last = errors[errors.length - 1];
      const notice =
        messagesSent > 0 ? '⚠️ The reply was cut short.' : `⚠️ ${last?.message ?? 'Something went wrong.'}`;
      await close(open(undefined), notice);
    }
  } catch (error) {
    throw DiscordChannelError.from(error, 'deliver a reply');
  } finally {
    typing?.stop();
  }
}
