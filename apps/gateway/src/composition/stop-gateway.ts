import type { Server } from 'node:http';
import type { GatewayParts, GatewayState } from './gateway-parts.ts';

/**
 * Stop: channels stop taking messages first, so nothing is acknowledged that core would then
 * refuse; replies keep flowing. Core then answers what it accepted or leaves it in the inbox, and
 * the stores, workers, connections and the server close after it.
 */
export async function stopGateway(
  parts: GatewayParts,
  server: Server,
  platformStarts: Promise<unknown>,
  state: GatewayState,
): Promise<void> {
  const { config, logger, core, web, platformChannels, memory, schedules } = parts;
  state.stopping = true;
  await Promise.all(
    [web, ...platformChannels].map((channel) =>
      channel.stopIntake?.().catch((error: unknown) => {
        logger.warn({ channel: channel.name, err: error }, 'channel could not stop its intake');
      }),
    ),
  );
  const memoryWorkersStopped = memory.stopWorkers();
  parts.media.stop();
  parts.webUploads.stop();
  await core.shutdown({ deadlineMs: config.core.shutdownDeadlineMs });
  // After core: the turns it still finishes read the schedule store (time zones, the tool).
  await schedules.close();
  await memoryWorkersStopped;
  await memory.close();
  await parts.tools.close();
  await parts.distributed?.close({ timeoutMs: 1000 });
  await Promise.race([platformStarts, new Promise((resolveWait) => setTimeout(resolveWait, 2000).unref())]);
  await Promise.all([
    web.stop(),
    ...platformChannels.map((channel) => channel.stop().catch(() => undefined)),
  ]);
  await new Promise<void>((resolveClose) => {
    server.close(() => resolveClose());
    server.closeIdleConnections();
    setTimeout(() => server.closeAllConnections(), 1000).unref();
  });
  parts.accessStore.close();
  logger.info({}, 'nexus gateway stopped');
}
