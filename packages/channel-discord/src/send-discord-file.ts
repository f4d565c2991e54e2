import type { ReplyMedia } from '@nexus/protocol';
import type { APIMessage, REST, RouteLike } from 'discord.js';

/** Discord's upload cap for a bot without boosts: 10 MiB per message. */
export const DISCORD_MAX_UPLOAD_BYTES = 10 * 1024 * 1024;

/**
 * Posts one reply file as a Discord attachment: discord.js's `files` turns the request into
 * multipart (`payload_json` + `files[0]`), and images show inline in the client.
 */
export async function postDiscordFile(options: {
  rest: REST;
  route: RouteLike;
  media: ReplyMedia;
  caption?: string;
  /** Webhook routes (interaction follow-ups) are called without the bot token. */
  auth?: boolean;
}): Promise<string> {
  const { media } = options;
  const message = (await options.rest.post(options.route, {
    body: {
      ...(options.caption ? { content: options.caption.slice(0, 2000) } : {}),
      allowed_mentions: { parse: [] },
      attachments: [{ id: 0, filename: media.name }],
    },
    files: [{ name: media.name, data: Buffer.from(media.base64, 'base64'), contentType: media.mimeType }],
    ...(options.auth === false ? { auth: false } : {}),
  })) as APIMessage;
  return message.id;
}
