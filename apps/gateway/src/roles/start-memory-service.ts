import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createMemoryRequestHandler, isLoopbackName } from '@nexus/memory';
import { type Logger, silentLogger } from '@nexus/protocol';
import { openLocalMemoryService } from '../composition/memory/create-gateway-memory.ts';
import type { GatewayConfig } from '../config/gateway-config.ts';
import { ConfigError } from '../config/load-config.ts';
import { applyConnectionLimit, httpServerOptions } from '../http/apply-http-limits.ts';
import { guardRequestListener } from '../http/guard-request-listener.ts';
import { refuseBadTarget } from '../http/refuse-bad-target.ts';

export interface RunningMemoryService {
  url: string;
  port: number;
  close(): Promise<void>;
}

/** Throws the configuration error of a memory service pointed at another one, or reachable without a key. */
export function assertMemoryServiceConfig(config: GatewayConfig): void {
  const { host } = config.server;
  if (config.role === 'memory' && config.memory.mode === 'http') {
    throw new ConfigError([
      'NEXUS_MEMORY_MODE=http points a process at a memory service; the memory service itself keeps memory in its own store: unset NEXUS_MEMORY_MODE (or set in-process) for it.',
    ]);
  }
  if (config.role === 'memory' && !config.memory.apiKey && !isLoopbackName(host)) {
    throw new ConfigError([
      `The memory service listens on ${host}, which other machines can reach, but has no key: set NEXUS_MEMORY_API_KEY or NEXUS_MEMORY_API_KEY_FILE (at least 16 characters), or bind it to 127.0.0.1.`,
    ]);
  }
}

/**
 * Role `memory` (`nexus memory serve`): the memory HTTP API on this process's store (Qdrant when
 * `NEXUS_QDRANT_URL` is set, else `<dataDir>/memory.sqlite`) for gateways and workers running with
 * `NEXUS_MEMORY_MODE=http`. Behind the same limits and guards as the gateway's own HTTP server.
 */
export async function startMemoryService(options: {
  config: GatewayConfig;
  logger?: Logger;
}): Promise<RunningMemoryService> {
  const { config } = options;
  const logger = (options.logger ?? silentLogger).child({ component: 'memory-service' });
  const { host } = config.server;
  const apiKey = config.memory.apiKey;
  assertMemoryServiceConfig({ ...config, role: 'memory' });
  if (!apiKey)
    logger.warn(
      { host },
      'memory service without NEXUS_MEMORY_API_KEY: loopback only, no key asked, requests addressed to another name (Host) refused',
    );
  const local = await openLocalMemoryService({ config, logger, backgroundReindex: true });
  const handle = createMemoryRequestHandler({ service: local.service, apiKey, logger });
  const server = createServer(
    httpServerOptions(config.server),
    guardRequestListener((request, response) => {
      if (refuseBadTarget(request, response)) return;
      return handle(request, response);
    }, logger),
  );
  applyConnectionLimit(server, config.server, logger);
  try {
    await new Promise<void>((resolveListen, rejectListen) => {
      server.once('error', rejectListen);
      server.listen(config.server.port, host, () => {
        server.off('error', rejectListen);
        resolveListen();
      });
    });
  } catch (error) {
    await local.close();
    throw error;
  }
  const port = (server.address() as AddressInfo).port;
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  const health = await local.service.health();
  logger.info(
    {
      url,
      store: config.memory.qdrantUrl ? 'qdrant' : 'sqlite',
      search: health.search,
      embedder: health.embedder ?? null,
    },
    'nexus memory service listening',
  );
  let closing: Promise<void> | undefined;
  return {
    url,
    port,
    close() {
      closing ??= (async () => {
        await new Promise<void>((resolveClose) => {
          server.close(() => resolveClose());
          server.closeAllConnections();
        });
        await local.close();
        logger.info({}, 'nexus memory service stopped');
      })();
      return closing;
    },
  };
}
