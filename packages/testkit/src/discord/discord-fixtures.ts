// Payload builders in the shape Discord's API v10 sends them, with the fields discord.js reads.

const DISCORD_EPOCH = 1_420_070_400_000n;

/** Snowflakes that carry a real timestamp, so discord.js' `createdAt` is sensible. */
export function createSnowflakeGenerator(now: () => number = Date.now): () => string {
  let increment = 0n;
  return () => {
    increment = (increment + 1n) & 0xfffn;
    return (((BigInt(now()) - DISCORD_EPOCH) << 22n) | (1n << 17n) | increment).toString();
  };
}

export interface FakeUser {
  id: string;
  username: string;
  globalName?: string;
  bot?: boolean;
}

/** A sticker on a message (`sticker_items`); the id is generated when left out. */
export interface FakeStickerItem {
  id?: string;
  name: string;
}

export interface FakeAttachment {
  filename: string;
  contentType?: string;
  size?: number;
  /** Discord's flag for voice messages (bit 13 of message flags) is set when true. */
  voice?: boolean;
  /** The file's bytes: served by the fake CDN at the attachment's signed `url`; `size` follows. */
  content?: Uint8Array;
}

export function userPayload(user: FakeUser) {
  return {
    id: user.id,
    username: user.username,
    discriminator: '0',
    global_name: user.globalName ?? null,
    avatar: null,
    bot: user.bot ?? false,
    system: false,
    public_flags: 0,
  };
}

export function memberPayload(user: FakeUser, roleIds: string[], joinedAt: string) {
  return {
    user: userPayload(user),
    nick: null,
    avatar: null,
    roles: roleIds,
    joined_at: joinedAt,
    deaf: false,
    mute: false,
    flags: 0,
    pending: false,
  };
}

export function rolePayload(options: {
  id: string;
  name: string;
  position: number;
  managed?: boolean;
  botId?: string;
}) {
  return {
    id: options.id,
    name: options.name,
    color: 0,
    colors: { primary_color: 0, secondary_color: null, tertiary_color: null },
    hoist: false,
    icon: null,
    unicode_emoji: null,
    position: options.position,
    permissions: options.managed ? '274877975552' : '1071698660929',
    managed: options.managed ?? false,
    mentionable: options.managed ?? false,
    flags: 0,
    ...(options.botId ? { tags: { bot_id: options.botId } } : {}),
  };
}

export function textChannelPayload(options: { id: string; guildId: string; name: string; position: number }) {
  return {
    id: options.id,
    type: 0,
    guild_id: options.guildId,
    name: options.name,
    position: options.position,
    permission_overwrites: [],
    topic: null,
    nsfw: false,
    last_message_id: null,
    rate_limit_per_user: 0,
    parent_id: null,
    flags: 0,
  };
}

export function threadPayload(options: {
  id: string;
  guildId: string;
  parentId: string;
  ownerId: string;
  name: string;
  archiveTimestamp: string;
}) {
  return {
    id: options.id,
    type: 11,
    guild_id: options.guildId,
    parent_id: options.parentId,
    owner_id: options.ownerId,
    name: options.name,
    last_message_id: null,
    rate_limit_per_user: 0,
    message_count: 0,
    member_count: 1,
    flags: 0,
    thread_metadata: {
      archived: false,
      auto_archive_duration: 1440,
      archive_timestamp: options.archiveTimestamp,
      locked: false,
    },
  };
}

export function directChannelPayload(options: { id: string; recipient: FakeUser }) {
  return {
    id: options.id,
    type: 1,
    last_message_id: null,
    flags: 0,
    recipients: [userPayload(options.recipient)],
  };
}

export function attachmentPayload(
  id: string,
  channelId: string,
  attachment: FakeAttachment,
  /** Where a file with `content` is served; returns its URL. */
  publish?: (channelId: string, id: string, filename: string, content: Uint8Array) => string,
) {
  const served =
    attachment.content && publish
      ? publish(channelId, id, attachment.filename, attachment.content)
      : undefined;
  return {
    id,
    filename: attachment.filename,
    size: attachment.content?.byteLength ?? attachment.size ?? 1024,
    url: served ?? `https://cdn.discordapp.invalid/attachments/${channelId}/${id}/${attachment.filename}`,
    proxy_url: `https://media.discordapp.invalid/attachments/${channelId}/${id}/${attachment.filename}`,
    ...(attachment.contentType ? { content_type: attachment.contentType } : {}),
    ...(attachment.voice ? { duration_secs: 3.5, waveform: 'AAAA' } : {}),
  };
}

/** Discord itself parses mentions out of the content; the fake does the same. */
export function mentionsIn(content: string): { userIds: string[]; roleIds: string[]; everyone: boolean } {
  const userIds = [...content.matchAll(/<@!?(\d+)>/g)].map((match) => match[1] as string);
  const roleIds = [...content.matchAll(/<@&(\d+)>/g)].map((match) => match[1] as string);
  return {
    userIds: [...new Set(userIds)],
    roleIds: [...new Set(roleIds)],
    everyone: /@(everyone|here)/.test(content),
  };
}
