import * as promClient from 'prom-client';
import { describe, expect, it } from 'vitest';
import { Counter, collectDefaultMetrics, Registry } from './prometheus.ts';

/** Each metric's `# TYPE` line, in the order the registry prints them. */
async function metricTypes(registry: { metrics(): Promise<string> }): Promise<string[]> {
  return (await registry.metrics()).split('\n').filter((line) => line.startsWith('# TYPE'));
}

describe('prometheus (prom-client without its index)', () => {
  it('registers the same default metrics as prom-client’s collectDefaultMetrics, in the same order', async () => {
    const ours = new Registry();
    collectDefaultMetrics({ register: ours, prefix: 'nexus_' });
    const theirs = new promClient.Registry();
    promClient.collectDefaultMetrics({ register: theirs, prefix: 'nexus_' });
    const expected = await metricTypes(theirs);
    expect(expected.length).toBeGreaterThan(20);
    expect(await metricTypes(ours)).toEqual(expected);
  });

  it('counts the process’s CPU time, user plus system', async () => {
    const registry = new Registry();
    collectDefaultMetrics({ register: registry });
    // Spend 30 ms of this process's CPU: counted in CPU, not wall-clock time, which a loaded
    // machine (the test run's other workers) may give the process only part of.
    const before = process.cpuUsage();
    const spent = () => {
      const { user, system } = process.cpuUsage(before);
      return user + system;
    };
    while (spent() < 30_000);
    const text = await registry.metrics();
    const value = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1]);
    expect(value('process_cpu_seconds_total')).toBeGreaterThan(0.02);
    expect(value('process_cpu_seconds_total')).toBeCloseTo(
      value('process_cpu_user_seconds_total') + value('process_cpu_system_seconds_total'),
      6,
    );
  });

  it('gives working metric classes', async () => {
    const registry = new Registry();
    const counter = new Counter({
      name: 'things_total',
      help: 'Things.',
      labelNames: ['kind'],
      registers: [registry],
    });
    counter.inc({ kind: 'a' }, 2);
    expect(await registry.metrics()).toContain('things_total{kind="a"} 2');
  });
});
