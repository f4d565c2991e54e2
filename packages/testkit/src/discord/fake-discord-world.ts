import {
  attachmentPayload,
  createSnowflakeGenerator,
  directChannelPayload,
  type FakeAttachment,
  type FakeStickerItem,
  type FakeUser,
  memberPayload,
  mentionsIn,
  rolePayload,
  textChannelPayload,
  threadPayload,
  userPayload,
} from './discord-fixtures.ts';
import type { FakeDiscordCdn } from './fake-discord-cdn.ts';

export interface FakeGuild {
  id: string;
  name: string;
  textChannelId: string;
  threadId: string;
  /** The role Discord creates for the bot when it joins ("managed", tagged with the bot id). */
  botRoleId: string;
  /** A role people can mention that is not the bot's. */
  otherRoleId: string;
}

// Discord's message flag for voice messages.
const IS_VOICE_MESSAGE = 1 << 13;

/** Everything the fake knows: the bot, one guild with a text channel and a thread, people, DMs, messages. */
export function createFakeDiscordWorld(options: {
  botUsername: string;
  now: () => number;
  /** Serves attachments that carry `content`. */
  cdn?: FakeDiscordCdn;
}) {
  const nextId = createSnowflakeGenerator(options.now);
  const isoNow = () => new Date(options.now()).toISOString();
  const bot: FakeUser = { id: nextId(), username: options.botUsername, bot: true };
  const applicationId = bot.id;
  const defaultUser: FakeUser = { id: nextId(), username: 'alice', globalName: 'Alice' };
  const users = new Map<string, FakeUser>([
    [bot.id, bot],
    [defaultUser.id, defaultUser],
  ]);
  const guildId = nextId();
  const guild: FakeGuild = {
    id: guildId,
    name: 'Fake Guild',
    textChannelId: nextId(),
    threadId: nextId(),
    botRoleId: nextId(),
    otherRoleId: nextId(),
  };
  const channels = new Map<string, Record<string, unknown>>();
  channels.set(
    guild.textChannelId,
    textChannelPayload({ id: guild.textChannelId, guildId, name: 'general', position: 0 }),
  );
  channels.set(
    guild.threadId,
    threadPayload({
      id: guild.threadId,
      guildId,
      parentId: guild.textChannelId,
      ownerId: defaultUser.id,
      name: 'a thread',
      archiveTimestamp: isoNow(),
    }),
  );
  const directChannelByUser = new Map<string, string>();
  const messages = new Map<string, Record<string, unknown>>();

  function rememberUser(user: FakeUser): FakeUser {
    const known = users.get(user.id);
    if (known && user.username === known.username) return known;
    users.set(user.id, user);
    return user;
  }

  function directChannelFor(user: FakeUser): Record<string, unknown> {
    let channelId = directChannelByUser.get(user.id);
    if (!channelId) {
      channelId = nextId();
      directChannelByUser.set(user.id, channelId);
      channels.set(channelId, directChannelPayload({ id: channelId, recipient: user }));
    }
    return channels.get(channelId) as Record<string, unknown>;
  }

  function memberRoles(userId: string): string[] {
    return userId === bot.id ? [guild.botRoleId] : [];
  }

  function guildCreatePayload() {
    const guildChannels = [...channels.values()].filter(
      (channel) => channel.guild_id === guildId && channel.type === 0,
    );
    const threads = [...channels.values()].filter((channel) => channel.type === 11);
    const joinedAt = isoNow();
    return {
      id: guildId,
      name: guild.name,
      icon: null,
      splash: null,
      discovery_splash: null,
      owner_id: defaultUser.id,
      afk_channel_id: null,
      afk_timeout: 300,
      verification_level: 0,
      default_message_notifications: 0,
      explicit_content_filter: 0,
      roles: [
        rolePayload({ id: guildId, name: '@everyone', position: 0 }),
        rolePayload({ id: guild.otherRoleId, name: 'helpers', position: 1 }),
        rolePayload({
          id: guild.botRoleId,
          name: options.botUsername,
          position: 2,
          managed: true,
          botId: bot.id,
        }),
      ],
      emojis: [],
      stickers: [],
      features: [],
      mfa_level: 0,
      system_channel_id: null,
      system_channel_flags: 0,
      rules_channel_id: null,
      public_updates_channel_id: null,
      safety_alerts_channel_id: null,
      vanity_url_code: null,
      description: null,
      banner: null,
      premium_tier: 0,
      premium_subscription_count: 0,
      premium_progress_bar_enabled: false,
      preferred_locale: 'en-US',
      nsfw_level: 0,
      max_members: 500_000,
      joined_at: joinedAt,
      large: false,
      unavailable: false,
      member_count: 2,
      voice_states: [],
      members: [memberPayload(bot, memberRoles(bot.id), joinedAt), memberPayload(defaultUser, [], joinedAt)],
      channels: guildChannels,
      threads,
      presences: [],
      stage_instances: [],
      guild_scheduled_events: [],
      soundboard_sounds: [],
    };
  }

  /** A MESSAGE_CREATE body as the gateway sends it, in a guild channel or thread, or a DM. */
  function messagePayload(input: {
    channelId: string;
    author: FakeUser;
    content: string;
    id?: string;
    replyToMessageId?: string;
    attachments?: FakeAttachment[];
    stickers?: FakeStickerItem[];
  }): Record<string, unknown> {
    const channel = channels.get(input.channelId);
    if (!channel) throw new Error(`Unknown channel ${input.channelId}.`);
    const inGuild = channel.guild_id === guildId;
    const id = input.id ?? nextId();
    const mentions = mentionsIn(input.content);
    const referenced = input.replyToMessageId ? messages.get(input.replyToMessageId) : undefined;
    if (input.replyToMessageId && !referenced) throw new Error(`Unknown message ${input.replyToMessageId}.`);
    const mentionedUsers = mentions.userIds.flatMap((userId) => {
      const user = users.get(userId);
      return user ? [userPayload(user)] : [];
    });
    const attachments = (input.attachments ?? []).map((attachment) =>
      attachmentPayload(nextId(), input.channelId, attachment, options.cdn?.publish),
    );
    const payload: Record<string, unknown> = {
      id,
      channel_id: input.channelId,
      author: userPayload(input.author),
      content: input.content,
      timestamp: isoNow(),
      edited_timestamp: null,
      tts: false,
      mention_everyone: mentions.everyone,
      mentions: mentionedUsers,
      mention_roles: mentions.roleIds,
      attachments,
      ...(input.stickers
        ? {
            // Discord's StickerItem: id, name and format (1 = PNG).
            sticker_items: input.stickers.map((sticker) => ({
              id: sticker.id ?? nextId(),
              name: sticker.name,
              format_type: 1,
            })),
          }
        : {}),
      embeds: [],
      components: [],
      pinned: false,
      type: referenced ? 19 : 0,
      flags: input.attachments?.some((attachment) => attachment.voice) ? IS_VOICE_MESSAGE : 0,
      channel_type: channel.type,
    };
    if (inGuild) {
      payload.guild_id = guildId;
      const member = memberPayload(input.author, memberRoles(input.author.id), isoNow());
      const { user: _user, ...memberWithoutUser } = member;
      payload.member = memberWithoutUser;
    }
    if (referenced) {
      payload.message_reference = {
        type: 0,
        message_id: referenced.id,
        channel_id: input.channelId,
        ...(inGuild ? { guild_id: guildId } : {}),
      };
      payload.referenced_message = referenced;
    }
    return payload;
  }

  /**
   * The message after its author changed the text, as Discord stores it: mentions recomputed,
   * `edited_timestamp` set (strictly later than any earlier edit, as Discord's clock is).
   */
  function editedPayload(messageId: string, content: string): Record<string, unknown> {
    const current = messages.get(messageId);
    if (!current) throw new Error(`Unknown message ${messageId}.`);
    const mentions = mentionsIn(content);
    const previous = typeof current.edited_timestamp === 'string' ? Date.parse(current.edited_timestamp) : 0;
    const editedAt = new Date(Math.max(options.now(), previous + 1)).toISOString();
    const updated: Record<string, unknown> = {
      ...current,
      content,
      edited_timestamp: editedAt,
      mention_everyone: mentions.everyone,
      mentions: mentions.userIds.flatMap((userId) => {
        const user = users.get(userId);
        return user ? [userPayload(user)] : [];
      }),
      mention_roles: mentions.roleIds,
    };
    messages.set(messageId, updated);
    return updated;
  }

  return {
    nextId,
    isoNow,
    editedPayload,
    bot,
    applicationId,
    defaultUser,
    guild,
    users,
    channels,
    messages,
    rememberUser,
    directChannelFor,
    guildCreatePayload,
    messagePayload,
  };
}

export type FakeDiscordWorld = ReturnType<typeof createFakeDiscordWorld>;
