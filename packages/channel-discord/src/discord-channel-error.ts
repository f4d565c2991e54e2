import { NexusError, type NexusErrorOptions } from '@nexus/protocol';
import { DiscordAPIError, HTTPError, RateLimitError } from 'discord.js';

/** A failure talking to Discord, classified so callers can tell "Discord said no" from "unreachable". */
export class DiscordChannelError extends NexusError {
  /** Discord's JSON error code (e.g. 50013 Missing Permissions) or HTTP status, when known. */
  readonly discordCode: number | string | undefined;

  constructor(options: NexusErrorOptions & { discordCode?: number | string }) {
    super(options);
    this.name = 'DiscordChannelError';
    this.discordCode = options.discordCode;
  }

  /**
   * 401/403/404/400 from Discord repeat on retry (bad token, missing permission, deleted
   * channel); 5xx, rate limits and network errors may pass.
   */
  static from(error: unknown, action: string): DiscordChannelError {
    if (error instanceof DiscordChannelError) return error;
    const reason = error instanceof Error ? error.message : String(error);
    if (error instanceof DiscordAPIError) {
      const unauthorized = error.status === 401;
      return new DiscordChannelError({
        code: unauthorized ? 'unauthorized' : error.status === 429 ? 'rate_limited' : 'channel_unavailable',
        message: `Discord refused to ${action}: ${reason}`,
        retryable: error.status === 429 || error.status >= 500,
        discordCode: error.code,
        cause: error,
      });
    }
    if (error instanceof RateLimitError) {
      return new DiscordChannelError({
        code: 'rate_limited',
        message: `Discord rate limited an attempt to ${action}.`,
        retryable: true,
        cause: error,
      });
    }
    return new DiscordChannelError({
      code: 'channel_unavailable',
      message: `Could not ${action}: ${reason}`,
      retryable: !(error instanceof HTTPError) || error.status >= 500,
      ...(error instanceof HTTPError ? { discordCode: error.status } : {}),
      cause: error,
    });
  }
}
