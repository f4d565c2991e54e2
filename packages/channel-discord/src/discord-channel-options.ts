import type { GroupMessages } from '@nexus/channel-kit';
import type { Logger } from '@nexus/protocol';

export interface DiscordChannelOptions {
  token: string;
  /** REST base, e.g. `http://127.0.0.1:PORT/api` for a fake; the gateway URL comes from `GET /gateway/bot`. */
  restApi?: string;
  /** Name used in intents and conversation refs; differs only when running several bots. Default `discord`. */
  name?: string;
  /** Least time between two edits of a streaming reply. Default 1200 (Discord allows ~5 edits / 5 s). */
  streamEditIntervalMs?: number;
  /** Typing refresh; Discord shows the indicator for ~10 s. Default 8000. */
  typingIntervalMs?: number;
  /** No gateway events for this long while connected (and an unanswered probe) → recreate the client. 0 = off. Default 120000. */
  watchdogMs?: number;
  /** Register `/new`, `/memories`, `/forget-me` at start and forward them as intents. Default false. */
  slashCommands?: boolean;
  /** Whether the reply to a guild message pings its author (never anyone named in model text). Default true. */
  mentionRepliedUser?: boolean;
  /** Which guild messages reach core (`group-gate` in channel-kit). Default `mentioned`. */
  groupMessages?: GroupMessages;
  /** How long a login may take before it counts as failed and is retried. Default 60000. */
  readyTimeoutMs?: number;
  /**
   * SQLite file with each channel's last message taken by core, read back after a restart or a
   * fresh gateway session to fetch what was missed, and the ids of the messages handed to core
   * (so a delete after a restart is still reported). Default `:memory:` (neither survives a restart).
   */
  cursorPath?: string;
  /** Pause before fetching again a message core refused as retryable. Default 2000. */
  intakeRetryDelayMs?: number;
  logger?: Logger;
  now?: () => number;
}
