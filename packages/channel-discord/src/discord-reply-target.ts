import { createHash } from 'node:crypto';
import type { ConversationRef, ReplyMedia } from '@nexus/protocol';
import { type APIMessage, MessageFlags, type REST, Routes } from 'discord.js';
import { postDiscordFile } from './send-discord-file.ts';

/**
 * Where a reply's messages go. Everything is plain REST on a long-lived client, so a reply in
 * progress survives the gateway connection being recreated underneath it.
 */
export interface DiscordReplyTarget {
  send(text: string, index: number): Promise<string>;
  edit(messageId: string, text: string): Promise<void>;
  remove(messageId: string): Promise<void>;
  typing(): Promise<void>;
  /** Sends one file of the reply as an attachment; returns the message id. */
  sendFile(media: ReplyMedia, caption?: string): Promise<string>;
}

/**
 * Model text must never notify anyone: `parse: []` turns off @everyone/@here, role and user
 * pings from content. Only the person being answered may be pinged, by the reply itself.
 */
function allowedMentions(repliedUser: boolean) {
  return { parse: [], replied_user: repliedUser };
}

/** Discord accepts nonces of up to 25 characters. */
const MAX_NONCE_LENGTH = 25;

/**
 * The key a delivery's nonces are made from: the answered message's snowflake, or for the answer
 * to an edit a short hash of the edit's own intent id (snowflake + edit time is too long for a
 * nonce), so the re-answer gets new messages instead of Discord handing back the first reply's.
 * Undefined when the answered intent is not a message (an interaction), which has no nonce.
 */
export function idempotencyKeyOf(conversation: ConversationRef): string | undefined {
  if (conversation.revisionIntentId !== undefined)
    return `e${createHash('sha256').update(conversation.revisionIntentId).digest('base64url').slice(0, 20)}`;
  return /^\d+$/.test(conversation.intentId) ? conversation.intentId : undefined;
}

function nonceFor(key: string | undefined, sequence: number): { nonce?: string; enforce_nonce?: boolean } {
  if (key === undefined) return {};
  const nonce = `${key}:${sequence}`;
  return nonce.length <= MAX_NONCE_LENGTH ? { nonce, enforce_nonce: true } : {};
}

export function channelReplyTarget(options: {
  rest: REST;
  channelId: string;
  /** Set in guilds: the first message replies to (references) the triggering message. */
  replyToMessageId?: string;
  mentionRepliedUser: boolean;
  /**
   * Names the reply (the intent it answers). The n-th message this delivery creates gets the
   * nonce `<key>:<n>` and `enforce_nonce`, so when a crash makes core deliver the same reply again
   * within Discord's few-minute window, Discord hands back the message it already created (which
   * is then edited to the final text) instead of posting a second one.
   */
  idempotencyKey?: string | undefined;
}): DiscordReplyTarget {
  const { rest, channelId } = options;
  // Counts every message this delivery creates (a status line, a notice, continuations), so each
  // gets its own nonce and a delivery run again creates them in the same order.
  let sends = 0;
  return {
    async send(text, index) {
      const reference = index === 0 && options.replyToMessageId !== undefined;
      const message = (await rest.post(Routes.channelMessages(channelId), {
        body: {
          content: text,
          allowed_mentions: allowedMentions(reference && options.mentionRepliedUser),
          ...nonceFor(options.idempotencyKey, sends++),
          ...(reference
            ? { message_reference: { message_id: options.replyToMessageId, fail_if_not_exists: false } }
            : {}),
        },
      })) as APIMessage;
      return message.id;
    },
    async edit(messageId, text) {
      await rest.patch(Routes.channelMessage(channelId, messageId), {
        body: { content: text, allowed_mentions: allowedMentions(false) },
      });
    },
    async remove(messageId) {
      await rest.delete(Routes.channelMessage(channelId, messageId));
    },
    async typing() {
      await rest.post(Routes.channelTyping(channelId));
    },
    sendFile: (media, caption) =>
      postDiscordFile({
        rest,
        route: Routes.channelMessages(channelId),
        media,
        ...(caption ? { caption } : {}),
      }),
  };
}

/** Answers a deferred slash command: the first chunk fills the "thinking…" reply, the rest follow up. */
export function interactionReplyTarget(options: {
  rest: REST;
  applicationId: string;
  token: string;
  ephemeral: boolean;
}): DiscordReplyTarget {
  const { rest, applicationId, token } = options;
  const flags = options.ephemeral ? MessageFlags.Ephemeral : undefined;
  return {
    async send(text, index) {
      const body = { content: text, allowed_mentions: allowedMentions(false) };
      // Editing the original response may set only SUPPRESS_EMBEDS and IS_COMPONENTS_V2: whether it
      // is ephemeral was decided by the deferral. A follow-up may (and must, to stay private) say EPHEMERAL.
      const message = (
        index === 0
          ? await rest.patch(Routes.webhookMessage(applicationId, token, '@original'), { body, auth: false })
          : await rest.post(Routes.webhook(applicationId, token), {
              body: { ...body, ...(flags ? { flags } : {}) },
              auth: false,
            })
      ) as APIMessage;
      return message.id;
    },
    async edit(messageId, text) {
      await rest.patch(Routes.webhookMessage(applicationId, token, messageId), {
        body: { content: text, allowed_mentions: allowedMentions(false) },
        auth: false,
      });
    },
    async remove(messageId) {
      await rest.delete(Routes.webhookMessage(applicationId, token, messageId), { auth: false });
    },
    // The deferred reply already shows "<bot> is thinking…" until the first chunk arrives.
    async typing() {},
    sendFile: (media, caption) =>
      postDiscordFile({
        rest,
        route: Routes.webhook(applicationId, token),
        media,
        ...(caption ? { caption } : {}),
        auth: false,
      }),
  };
}
