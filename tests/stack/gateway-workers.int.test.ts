import { type ScriptedModelServer, startScriptedModelServer } from '@nexus/testkit/llm';
import { WebChatClient } from '@nexus/testkit/web-chat';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { metricValue, Stack, type StackProcess } from './stack-processes.ts';

// A gateway process and two worker processes meeting in this machine's Redis, driven through the
// web-socket channel like browsers would: replies arrive once each, in order within every
// conversation, both workers take runs, and a worker killed mid-reply costs nothing but time.

const TOKEN = 'stack-test-token-0123456789';
const SLOW_CHUNKS = Array.from({ length: 12 }, (_, index) => `part${index} `);

describe('gateway and workers on Redis', () => {
  let model: ScriptedModelServer;
  let stack: Stack;
  let gateway: StackProcess;
  let workers: StackProcess[];

  beforeAll(async () => {
    model = await startScriptedModelServer({ latencyMs: 10, recordRequests: false });
    // A message containing "slow" streams for ~2.4 s, long enough to kill its worker mid-reply.
    model.setResponder((request) => {
      const last = request.messages.findLast((message) => message.role === 'user');
      const text = typeof last?.content === 'string' ? last.content : '';
      return text.includes('slow') ? { chunks: SLOW_CHUNKS, chunkDelayMs: 200 } : { text: `Echo: ${text}` };
    });
    stack = new Stack({
      modelBaseUrl: model.baseUrl,
      token: TOKEN,
      env: { NEXUS_JOB_LOCK_MS: '2000', NEXUS_JOB_STALLED_CHECK_MS: '1000', NEXUS_WORKER_CONCURRENCY: '16' },
    });
    [gateway, ...workers] = await Promise.all([
      stack.start('gateway', { NEXUS_MAX_CONCURRENT_TURNS: '64' }),
      stack.start('worker'),
      stack.start('worker'),
    ]);
  }, 60_000);

  afterAll(async () => {
    await stack?.close();
    await model?.close();
  }, 60_000);

  it('answers 100 conversations × 5 messages once each, in order, with both workers taking runs', async () => {
    const clients = await Promise.all(
      Array.from({ length: 10 }, () => WebChatClient.connect({ url: gateway.url, token: TOKEN })),
    );
    try {
      const conversations = Array.from({ length: 100 }, (_, conversation) => {
        const client = clients[conversation % clients.length]!;
        // All five are sent at once: the gateway's lane must keep them in order across workers.
        return Promise.all(
          Array.from({ length: 5 }, (_, turn) => client.ask(`c${conversation}`, `c${conversation} m${turn}`)),
        );
      });
      const replies = await Promise.all(conversations);
      for (const [conversation, answers] of replies.entries()) {
        expect(answers.map((answer) => answer.text)).toEqual(
          Array.from({ length: 5 }, (_, turn) => `Echo: c${conversation} m${turn}`),
        );
      }
      for (const [index, client] of clients.entries()) {
        for (let conversation = index; conversation < 100; conversation += clients.length) {
          const ends = client
            .eventsOf(`c${conversation}`)
            .filter((entry) => entry.event.type === 'reply.end');
          expect(ends).toHaveLength(5);
        }
      }
      const runsPerWorker = await Promise.all(
        workers.map((worker) => metricValue(worker.url, 'nexus_agent_runs_total{outcome="ok"}')),
      );
      expect(runsPerWorker.reduce((sum, runs) => sum + runs, 0)).toBe(500);
      for (const runs of runsPerWorker) expect(runs).toBeGreaterThan(0);
    } finally {
      await Promise.all(clients.map((client) => client.close()));
    }
  }, 60_000);

  it('finishes a reply on the other worker when its worker is SIGKILLed mid-reply, and sends it once', async () => {
    const client = await WebChatClient.connect({ url: gateway.url, token: TOKEN });
    try {
      const reply = client.ask('kill', 'please be slow');
      await client.waitFor((frame) => frame.type === 'event' && frame.event.type === 'reply.delta', 10_000);
      const active = await Promise.all(
        workers.map((worker) => metricValue(worker.url, 'nexus_agent_runs_active')),
      );
      const victimIndex = active.indexOf(1);
      expect(victimIndex).not.toBe(-1);
      const victim = workers[victimIndex]!;
      const survivor = workers[1 - victimIndex]!;
      const survivorRunsBefore = await metricValue(survivor.url, 'nexus_agent_runs_total{outcome="ok"}');
      victim.child.kill('SIGKILL');
      await victim.exited;

      const answer = await reply;
      const whole = SLOW_CHUNKS.join('');
      expect(answer.text).toBe(whole);
      const events = client.eventsOf('kill').map((entry) => entry.event);
      expect(events.filter((event) => event.type === 'reply.start')).toHaveLength(1);
      expect(events.filter((event) => event.type === 'reply.end')).toHaveLength(1);
      expect(events.filter((event) => event.type === 'error')).toHaveLength(0);
      // The streamed text is the reply once: the new run's deltas resume where the dead one stopped.
      const streamed = events.map((event) => (event.type === 'reply.delta' ? event.text : '')).join('');
      expect(streamed).toBe(whole);
      // The worker counts the run when it settles the job, which may be just after the reply ended.
      await expect
        .poll(() => metricValue(survivor.url, 'nexus_agent_runs_total{outcome="ok"}'))
        .toBe(survivorRunsBefore + 1);
      // Sequence numbers of the conversation never repeat.
      const seqs = client.eventsOf('kill').map((entry) => entry.seq);
      expect(new Set(seqs).size).toBe(seqs.length);
    } finally {
      await client.close();
    }
  }, 30_000);
});
