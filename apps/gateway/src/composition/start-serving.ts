import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { GatewayParts, GatewayState } from './gateway-parts.ts';

export interface ServingGateway {
  url: string;
  port: number;
  /** Settles when every platform channel started or failed to (never rejects). */
  platformStarts: Promise<unknown>;
}

/**
 * Start: the server listens, the web chat takes messages, platform channels connect in the
 * background, and reminders begin once they are up.
 */
export async function startServing(
  parts: GatewayParts,
  server: Server,
  state: GatewayState,
): Promise<ServingGateway> {
  const { config, logger, core, web, platformChannels, schedules } = parts;
  await new Promise<void>((resolveListen, rejectListen) => {
    server.once('error', rejectListen);
    server.listen(config.server.port, config.server.host, () => {
      server.off('error', rejectListen);
      resolveListen();
    });
  });
  await web.start({ sink: core.intake, cancel: core.cancelReply });
  // Platform channels start in the background: one that cannot connect (or waits to be linked) is
  // logged and reported by /ready, and never delays or stops the web chat.
  const platformStarts = Promise.all(
    platformChannels.map((channel) =>
      channel.start({ sink: core.intake }).then(
        () => logger.info({ channel: channel.name }, 'channel started'),
        (error: unknown) => logger.error({ channel: channel.name, err: error }, 'channel failed to start'),
      ),
    ),
  );
  // Due reminders (and those missed while down, marked late) go out once the channels are up; a
  // channel that failed to start makes its deliveries fail and retry with backoff.
  void platformStarts.then(() => {
    if (state.stopping) return;
    schedules.start().catch((error: unknown) => logger.error({ err: error }, 'schedules failed to start'));
  });
  const port = (server.address() as AddressInfo).port;
  const host = config.server.host;
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  logger.info({ url }, 'nexus gateway listening');
  return { url, port, platformStarts };
}
