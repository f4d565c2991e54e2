import { type Client, DiscordjsError } from 'discord.js';

/**
 * Asks the gateway for something only it can answer: the bot's own member record in one guild
 * (op 8 with `user_ids`, which needs no privileged intent). An answer, or even a gateway
 * rate-limit reply, proves events still flow; a timeout means the connection is deaf. Heartbeat
 * ACKs cannot prove that, since Discord has been known to ACK while delivering nothing.
 * Without a guild, a recent heartbeat ACK is the best evidence available.
 */
export async function probeDiscordGateway(
  client: Client<true>,
  options: { timeoutMs: number },
): Promise<boolean> {
  const guild = client.guilds.cache.first();
  if (!guild) {
    return [...client.ws.shards.values()].every(
      (shard) => shard.lastPingTimestamp > 0 && Date.now() - shard.lastPingTimestamp < options.timeoutMs * 4,
    );
  }
  try {
    await guild.members.fetch({ user: [client.user.id], time: options.timeoutMs });
    return true;
  } catch (error) {
    // @discordjs/util's GatewayRateLimitError: the gateway answered, just not with members.
    if (error instanceof Error && error.name === 'GatewayRateLimitError') return true;
    if (error instanceof DiscordjsError && error.code === 'GuildMembersTimeout') return false;
    // Anything else (e.g. the socket closing under us) is discord.js' own reconnect to handle.
    return true;
  }
}
