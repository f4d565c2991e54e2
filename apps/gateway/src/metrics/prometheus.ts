import { createRequire } from 'node:module';
import type * as PromClient from 'prom-client';

/**
 * prom-client's metric classes and default metrics, required file by file instead of through its
 * index. The index also loads its push-gateway client, cluster aggregator and summary (tdigest),
 * and its process-CPU metric requires @opentelemetry/api (51 modules) at load for exemplars we
 * never enable: about 6 MB of RSS and 25 ms of start-up in every process, tracing on or off
 * (docs/deployment.md, "Memory"). prom-client is pinned by the lockfile; the metrics tests of the
 * gateway and the worker read `/metrics` and fail if a file moves.
 */
const require = createRequire(import.meta.url);

export const Registry = require('prom-client/lib/registry') as typeof PromClient.Registry;
export type Registry = PromClient.Registry;
export const Counter = require('prom-client/lib/counter') as typeof PromClient.Counter;
export type Counter<T extends string = string> = PromClient.Counter<T>;
export const Gauge = require('prom-client/lib/gauge') as typeof PromClient.Gauge;
export type Gauge<T extends string = string> = PromClient.Gauge<T>;
export const Histogram = require('prom-client/lib/histogram') as typeof PromClient.Histogram;
export type Histogram<T extends string = string> = PromClient.Histogram<T>;

type DefaultMetric = (
  registry: Registry,
  config: { prefix: string; eventLoopMonitoringPrecision: number },
) => void;

/** prom-client's default metrics as `collectDefaultMetrics` lists them, process CPU aside. */
const DEFAULT_METRICS = [
  'processStartTime',
  'osMemoryHeap',
  'processOpenFileDescriptors',
  'processMaxFileDescriptors',
  'eventLoopLag',
  'processResources',
  'processHandles',
  'processRequests',
  'heapSizeAndUsed',
  'heapSpacesSizeAndUsed',
  'version',
  'gc',
];

/** What `collectDefaultMetrics({ register, prefix })` registers, under the same names. */
export function collectDefaultMetrics(options: { register: Registry; prefix?: string }): void {
  const prefix = options.prefix ?? '';
  registerProcessCpu(options.register, prefix);
  for (const name of DEFAULT_METRICS) {
    (require(`prom-client/lib/metrics/${name}`) as DefaultMetric)(options.register, {
      prefix,
      eventLoopMonitoringPrecision: 10,
    });
  }
}

/** prom-client's three process CPU counters, without the exemplar support that needs OTel. */
function registerProcessCpu(registry: Registry, prefix: string): void {
  let last = process.cpuUsage();
  new Counter({
    name: `${prefix}process_cpu_user_seconds_total`,
    help: 'Total user CPU time spent in seconds.',
    registers: [registry],
    // One collect sets all three, from one reading.
    collect() {
      const usage = process.cpuUsage();
      const userSeconds = (usage.user - last.user) / 1e6;
      const systemSeconds = (usage.system - last.system) / 1e6;
      last = usage;
      this.inc(userSeconds);
      system.inc(systemSeconds);
      total.inc(userSeconds + systemSeconds);
    },
  });
  const system = new Counter({
    name: `${prefix}process_cpu_system_seconds_total`,
    help: 'Total system CPU time spent in seconds.',
    registers: [registry],
  });
  const total = new Counter({
    name: `${prefix}process_cpu_seconds_total`,
    help: 'Total user and system CPU time spent in seconds.',
    registers: [registry],
  });
}
