export { createDiscordChannel } from './discord-channel.ts';
export { DiscordChannelError } from './discord-channel-error.ts';
export type { DiscordChannelOptions } from './discord-channel-options.ts';
export { DISCORD_SLASH_COMMANDS, type DiscordSlashCommand } from './discord-slash-commands.ts';
export { type DiscordMessageMapping, discordMessageToIntent } from './to-intent.ts';
