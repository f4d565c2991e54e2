import type { IntentInput } from '@nexus/protocol';
import {
  type ChatInputCommandInteraction,
  type Client,
  InteractionContextType,
  InteractionResponseType,
  MessageFlags,
  type REST,
  Routes,
} from 'discord.js';

export interface DiscordSlashCommand {
  name: string;
  description: string;
  /** Personal answers (what is remembered about you) are shown to the person who asked only. */
  ephemeral: boolean;
}

/** Each command reaches core as an intent whose text is `/<name>`, like a typed command elsewhere. */
export const DISCORD_SLASH_COMMANDS: readonly DiscordSlashCommand[] = [
  { name: 'new', description: 'Start a new conversation', ephemeral: false },
  { name: 'memories', description: 'Show what the assistant remembers about you', ephemeral: true },
  {
    name: 'forget-me',
    description: 'Make the assistant forget everything it remembers about you',
    ephemeral: true,
  },
];

export async function registerSlashCommands(client: Client<true>): Promise<void> {
  await client.application.commands.set(
    DISCORD_SLASH_COMMANDS.map((command) => ({
      name: command.name,
      description: command.description,
      contexts: [InteractionContextType.Guild, InteractionContextType.BotDM],
    })),
  );
}

export function findSlashCommand(name: string): DiscordSlashCommand | undefined {
  return DISCORD_SLASH_COMMANDS.find((command) => command.name === name);
}

/** Discord wants an answer within 3 s; deferring shows "thinking…" while the turn runs. */
export async function deferSlashCommand(
  rest: REST,
  interaction: ChatInputCommandInteraction,
  command: DiscordSlashCommand,
): Promise<void> {
  await rest.post(Routes.interactionCallback(interaction.id, interaction.token), {
    body: {
      type: InteractionResponseType.DeferredChannelMessageWithSource,
      ...(command.ephemeral ? { data: { flags: MessageFlags.Ephemeral } } : {}),
    },
    auth: false,
  });
}

export function slashCommandIntent(
  interaction: ChatInputCommandInteraction,
  options: { channelName: string; now: () => number },
): IntentInput {
  const channel = interaction.channel;
  const kind = !interaction.inGuild() ? 'direct' : channel?.isThread() ? 'thread' : 'group';
  return {
    id: `interaction:${interaction.id}`,
    channel: options.channelName,
    conversation: { id: interaction.channelId, kind },
    sender: {
      platformId: interaction.user.id,
      displayName: (interaction.member && 'displayName' in interaction.member
        ? interaction.member.displayName
        : interaction.user.displayName
      ).slice(0, 512),
    },
    userId: `${options.channelName}:${interaction.user.id}`,
    text: `/${interaction.commandName}`,
    attachments: [],
    mentionsAssistant: true,
    receivedAt: new Date(options.now()).toISOString(),
  };
}
