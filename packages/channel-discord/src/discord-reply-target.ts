import { type APIMessage, MessageFlags, type REST, Routes } from 'discord.js';

/**
 * Where a reply's messages go. Everything is plain REST on a long-lived client, so a reply in
 * progress survives the gateway connection being recreated underneath it.
 */
export interface DiscordReplyTarget {
  send(text: string, index: number): Promise<string>;
  edit(messageId: string, text: string): Promise<void>;
  remove(messageId: string): Promise<void>;
  typing(): Promise<void>;
}

/**
 * Model text must never notify anyone: `parse: []` turns off @everyone/@here, role and user
 * pings from content. Only the person being answered may be pinged, by the reply itself.
 */
function allowedMentions(repliedUser: boolean) {
  return { parse: [], replied_user: repliedUser };
}

export function channelReplyTarget(options: {
  rest: REST;
  channelId: string;
  /** Set in guilds: the first message replies to (references) the triggering message. */
  replyToMessageId?: string;
  mentionRepliedUser: boolean;
}): DiscordReplyTarget {
  const { rest, channelId } = options;
  return {
    async send(text, index) {
      const reference = index === 0 && options.replyToMessageId !== undefined;
      const message = (await rest.post(Routes.channelMessages(channelId), {
        body: {
          content: text,
          allowed_mentions: allowedMentions(reference && options.mentionRepliedUser),
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
      const body = { content: text, allowed_mentions: allowedMentions(false), ...(flags ? { flags } : {}) };
      const message = (
        index === 0
          ? await rest.patch(Routes.webhookMessage(applicationId, token, '@original'), { body, auth: false })
          : await rest.post(Routes.webhook(applicationId, token), { body, auth: false })
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
  };
}
