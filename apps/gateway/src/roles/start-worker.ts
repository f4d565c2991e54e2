import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type AgentRunWorkerHost, createRedisClient, startAgentRunWorkerHost } from '@nexus/agent-redis';
import { type Logger, silentLogger } from '@nexus/protocol';
import { createConfiguredAgent } from '../composition/create-configured-agent.ts';
import { assertRoleConfig, createAgentRunQueue, turnLimitsOf } from '../composition/distributed-runs.ts';
import { createModelFetch } from '../composition/model-fetch.ts';
import type { GatewayConfig } from '../config/gateway-config.ts';
import { createHttpHandler, type Readiness } from '../http/http-handler.ts';
import { WorkerMetrics } from '../metrics/worker-metrics.ts';
import type { GatewayTracing } from '../tracing/gateway-tracing.ts';
import { startWorkerExtraction } from './worker-extraction.ts';

export interface RunningWorker {
  /** Where `/health`, `/ready` and `/metrics` are served. */
  url: string;
  port: number;
  metrics: WorkerMetrics;
  /** Stops taking runs; runs still going at the shutdown deadline go back to the queue for another worker. */
  close(): Promise<void>;
}

/**
 * Role `worker`: no channels, no sessions, no state of its own. It takes `agent.run` jobs from
 * Redis, runs the agent on the configured model, and streams the reply back to the gateway that
 * asked; with a shared memory service it also takes `memory.extract` jobs. HTTP serves only
 * health, readiness and metrics.
 */
export async function startWorker(options: {
  config: GatewayConfig;
  logger?: Logger;
  now?: () => number;
  /** Tracing on: each agent run and extraction job is a span in the trace of its turn. */
  tracing?: GatewayTracing;
}): Promise<RunningWorker> {
  const { config } = options;
  const logger = options.logger ?? silentLogger;
  const now = options.now ?? Date.now;
  assertRoleConfig(config);
  const redisUrl = config.redis.url as string;
  const startedAt = now();
  // One keep-alive client for every model request of this process (agent runs, extraction).
  const modelFetch = createModelFetch();
  const { model, agent } = await createConfiguredAgent(config, logger, { fetch: modelFetch });
  const metrics = new WorkerMetrics();
  const queue = await createAgentRunQueue(config, logger, options.tracing);
  const probe = createRedisClient({ url: redisUrl, name: 'nexus-worker-probe', logger });
  let host: AgentRunWorkerHost;
  try {
    host = await startAgentRunWorkerHost({
      redisUrl,
      prefix: config.redis.prefix,
      queue,
      agent,
      concurrency: config.worker.concurrency,
      turnLimits: turnLimitsOf(config),
      budgetObserver: metrics.budgetObserver,
      logger,
      onRun: (report) => metrics.observeRun(report),
    });
  } catch (error) {
    probe.disconnect();
    await queue.close({ timeoutMs: 0 });
    throw error;
  }
  const extraction = await startWorkerExtraction({
    config,
    queue,
    model,
    fetch: modelFetch,
    logger,
    onExtracted: () => metrics.observeExtraction(),
  });

  let stopping = false;
  const readiness = (): Readiness => {
    const redisUp = probe.status === 'ready';
    return {
      ready: !stopping && redisUp,
      checks: {
        worker: { status: stopping ? 'stopping' : 'up' },
        redis: redisUp ? { status: 'up' } : { status: 'down', detail: `Redis ${probe.status}` },
        model: model
          ? { status: 'configured' }
          : { status: 'not_configured', detail: 'set NEXUS_MODEL_PROVIDER' },
      },
    };
  };
  const server = createServer(
    createHttpHandler({
      staticFiles: new Map(),
      readiness,
      startedAt,
      now,
      ...(config.metrics?.token ? { metricsToken: config.metrics.token } : {}),
      metrics: async () => {
        metrics.activeRuns.set(host.activeRuns());
        return { contentType: metrics.registry.contentType, body: await metrics.registry.metrics() };
      },
    }),
  );
  await new Promise<void>((resolveListen, rejectListen) => {
    server.once('error', rejectListen);
    server.listen(config.server.port, config.server.host, () => {
      server.off('error', rejectListen);
      resolveListen();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const url = `http://${config.server.host.includes(':') ? `[${config.server.host}]` : config.server.host}:${port}`;
  logger.info({ url, concurrency: config.worker.concurrency }, 'nexus worker ready');

  let closing: Promise<void> | undefined;
  return {
    url,
    port,
    metrics,
    close() {
      closing ??= (async () => {
        stopping = true;
        await Promise.all([
          host.close({ timeoutMs: config.core.shutdownDeadlineMs }),
          extraction?.stop({ timeoutMs: config.core.shutdownDeadlineMs }),
        ]);
        await queue.close({ timeoutMs: 0 });
        probe.disconnect();
        await new Promise<void>((resolveClose) => {
          server.close(() => resolveClose());
          server.closeAllConnections();
        });
        logger.info({}, 'nexus worker stopped');
      })();
      return closing;
    },
  };
}
