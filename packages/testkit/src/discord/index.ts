export type { FakeAttachment, FakeStickerItem, FakeUser } from './discord-fixtures.ts';
export {
  type FakeDiscord,
  type FakeDiscordOptions,
  type InjectedInteraction,
  type InjectedMessage,
  startFakeDiscord,
} from './fake-discord.ts';
export type { UploadedDiscordFile } from './fake-discord-cdn.ts';
export type { GatewayLogEntry, GatewayStats, ResumeOutcome } from './fake-discord-gateway.ts';
export type {
  FakeDiscordMessage,
  MessagePings,
  RateLimitInjection,
  RecordedDiscordRequest,
  RegisteredCommand,
} from './fake-discord-rest.ts';
export type { FakeGuild } from './fake-discord-world.ts';
export type { PrivilegedIntent } from './gateway-intents.ts';
