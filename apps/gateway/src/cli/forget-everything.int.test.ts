import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { agentRunKeys } from '@nexus/agent-redis';
import type { JobQueue } from '@nexus/protocol';
import { createBullMqJobQueue } from '@nexus/queue-bullmq';
import { createSqliteJobQueue } from '@nexus/queue-sqlite';
import {
  type ChatCompletionRequest,
  type ScriptedModelServer,
  startScriptedModelServer,
} from '@nexus/testkit/llm';
import { type QdrantStandIn, startQdrantStandIn } from '@nexus/testkit/qdrant';
import { WebChatClient } from '@nexus/testkit/web-chat';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openAccessStore } from '../composition/create-gateway-access.ts';
import {
  filesContaining,
  qdrantPointsContaining,
  redisKeysContaining,
  sqliteFiles,
} from '../testing/marker-scan.ts';
import { isDecision, isExtraction } from '../testing/memory-test-support.ts';
import { startTestGateway } from '../testing/test-gateway.ts';
import { until } from '../testing/until.ts';

const REDIS_URL = 'redis://127.0.0.1:6379';
const MARKER = `zqxmark${randomUUID().replaceAll('-', '').slice(0, 12)}`;
const KEPT = `keptmark${randomUUID().replaceAll('-', '').slice(0, 12)}`;

let model: ScriptedModelServer;
let qdrant: QdrantStandIn;
let redis: Redis;

const lastUser = (request: ChatCompletionRequest) =>
  String(request.messages.findLast((message) => message.role === 'user')?.content ?? '');

beforeAll(async () => {
  model = await startScriptedModelServer({ embeddingDimensions: 64 });
  qdrant = await startQdrantStandIn();
  redis = new Redis(REDIS_URL);
  model.setResponder((request) => {
    if (isExtraction(request)) {
      // The first message's extraction gets invalid JSON twice (the job is parked); the others
      // get a server error, so their jobs wait for a retry.
      const first = request.messages.some(
        (message) => message.role === 'user' && String(message.content).includes('locker code is'),
      );
      return first ? { text: 'no json here' } : { status: 500 };
    }
    if (isDecision(request)) return { text: '{"decisions":[]}' };
    const toolDone = request.messages.some((message) => message.role === 'tool');
    if (lastUser(request).startsWith('Please remind me') && !toolDone) {
      return { toolCalls: [{ name: 'schedule', arguments: { text: `Bring ${MARKER}`, cron: '0 9 * * *' } }] };
    }
    if (lastUser(request).startsWith('Please remember') && !toolDone) {
      return { toolCalls: [{ name: 'remember', arguments: { content: `Locker code ${MARKER}` } }] };
    }
    return { text: `Noted: ${lastUser(request)}` };
  });
});

afterAll(async () => {
  redis?.disconnect();
  await Promise.all([model?.close(), qdrant?.close()]);
});

/** A plain-text file uploaded by a web client, as the web page does before naming it in a message. */
async function uploadText(url: string, token: string, clientId: string, name: string, text: string) {
  const response = await fetch(`${url}/api/web/uploads`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'x-nexus-client-id': clientId,
      'x-nexus-file-name': encodeURIComponent(name),
    },
    body: new TextEncoder().encode(text),
  });
  expect(response.status).toBe(201);
  return String(((await response.json()) as { uploadId: string }).uploadId);
}

/** Sends a message with one uploaded file and waits for its reply: the turn reads and keeps the file. */
async function sendWithFile(client: WebChatClient, conversationId: string, uploadId: string, name: string) {
  const ended = client.waitFor(
    (frame) =>
      frame.type === 'event' && frame.conversationId === conversationId && frame.event.type === 'reply.end',
  );
  client.sendRaw(
    JSON.stringify({
      type: 'message',
      clientMessageId: randomUUID(),
      conversationId,
      text: 'what does my note say?',
      attachments: [{ uploadId, name }],
    }),
  );
  await ended;
}

/**
 * Plants the marker through the chat paths: a turn, a parked extraction, a waiting one, a
 * remembered fact, a reminder, a link code, and a text file uploaded and read in a turn (its
 * bytes in the media store, its name in the upload record).
 */
async function plantThroughChat(url: string, token: string): Promise<WebChatClient> {
  const ann = await WebChatClient.connect({ url, token, clientId: 'ann' });
  const note = `${MARKER}.txt`;
  await sendWithFile(ann, 'files', await uploadText(url, token, 'ann', note, `Gate code ${MARKER}`), note);
  expect((await ann.ask('a', `My locker code is ${MARKER}`)).text).toContain(MARKER);
  expect((await ann.ask('a', `Please remember my locker code ${MARKER}`)).text).toContain(MARKER);
  expect((await ann.ask('a', `Please remind me every morning to bring ${MARKER}`)).text).toContain(MARKER);
  expect((await ann.ask('a', '/reminders')).text).toContain(MARKER);
  expect((await ann.ask('a', '/link')).text).toMatch(/link code/i);
  const bob = await WebChatClient.connect({ url, token, clientId: 'bob' });
  expect((await bob.ask('b', `My bike is ${KEPT}`)).text).toContain(KEPT);
  await sendWithFile(
    bob,
    'bob-files',
    await uploadText(url, token, 'bob', 'bike.txt', `Bike ${KEPT}`),
    'bike.txt',
  );
  await bob.close();
  return ann;
}

async function forgetAnn(ann: WebChatClient): Promise<string> {
  expect((await ann.ask('a', '/forget-me')).text).toMatch(/forget-me confirm/);
  const reply = (await ann.ask('a', '/forget-me confirm')).text ?? '';
  await ann.close();
  return reply;
}

async function waitForJobs(queue: JobQueue): Promise<void> {
  await until(
    async () => {
      const parked = await queue.parked({ name: 'memory.extract' });
      const counts = await queue.counts({ name: 'memory.extract' });
      return (
        parked.some((job) => JSON.stringify(job.payload).includes(MARKER)) &&
        counts.waiting + counts.delayed + counts.active > 0
      );
    },
    'a parked and a waiting extraction job',
    15_000,
  );
}

describe('/forget-me leaves no trace of the person', () => {
  it('embedded stores: every SQLite file of the data directory, WAL included, is free of the marker', async () => {
    const gateway = await startTestGateway({
      modelBaseUrl: model.baseUrl,
      env: { NEXUS_MEMORY_EXTRACTION: 'true' },
    });
    const jobs = createSqliteJobQueue({ path: join(gateway.config.dataDir, 'jobs.sqlite') });
    try {
      const ann = await plantThroughChat(gateway.url, gateway.token);
      await waitForJobs(jobs);
      // A pairing request of hers, as `nexus pairing` would list it (written beside the gateway).
      const access = openAccessStore(gateway.config.dataDir);
      access.pairing.create({
        channel: 'web',
        platformId: 'ann',
        code: 'PAIRANN2',
        displayName: MARKER,
        ttlMs: 60_000,
      });
      access.close();

      const before = await filesContaining(gateway.config.dataDir, MARKER);
      expect(before.map((path) => path.split('/').pop())).toEqual(
        expect.arrayContaining([
          expect.stringMatching(/^sessions\.sqlite/),
          expect.stringMatching(/^jobs\.sqlite/),
          expect.stringMatching(/^memory\.sqlite/),
          expect.stringMatching(/^access\.sqlite/),
          expect.stringMatching(/^schedules\.sqlite/),
        ]),
      );
      // Her file's bytes in her media folder, and its name in her upload record.
      expect(before).toEqual(
        expect.arrayContaining([
          expect.stringMatching(/\/media\/[0-9a-f]{64}\/[0-9a-f]{64}$/),
          expect.stringMatching(/\/web-uploads\/[A-Za-z0-9_-]{22}\.json$/),
        ]),
      );

      const reply = await forgetAnn(ann);
      expect(reply).toMatch(/- memories: 1\n/);
      // Her two turns, plus intake inbox entries of hers still open (this very command's, at least).
      expect(Number(/- conversation turns: (\d+)\n/.exec(reply)?.[1])).toBeGreaterThanOrEqual(2);
      expect(Number(/- memory jobs: (\d+)\n/.exec(reply)?.[1])).toBeGreaterThanOrEqual(2);
      expect(reply).toMatch(/- web upload records: 1\n/);
      expect(reply).toMatch(/- media files: 1\n/);
      await jobs.close();

      expect(await sqliteFiles(gateway.config.dataDir)).toEqual(
        expect.arrayContaining(['sessions.sqlite', 'jobs.sqlite', 'memory.sqlite', 'access.sqlite']),
      );
      expect(await filesContaining(gateway.config.dataDir, MARKER)).toEqual([]);
      // Only she was forgotten: Bob's turn, his file and its record are still there.
      expect(await filesContaining(gateway.config.dataDir, KEPT)).toEqual(
        expect.arrayContaining([expect.stringMatching(/\/media\/[0-9a-f]{64}\/[0-9a-f]{64}$/)]),
      );
      const database = new DatabaseSync(join(gateway.config.dataDir, 'access.sqlite'), { readOnly: true });
      const left = database
        .prepare(
          `SELECT (SELECT COUNT(*) FROM link_codes WHERE person_id = 'web:ann') AS codes,
             (SELECT COUNT(*) FROM pairing_requests WHERE platform_id = 'ann') AS pairing`,
        )
        .get();
      database.close();
      expect(left).toEqual({ codes: 0, pairing: 0 });
    } finally {
      await jobs.close();
      await gateway.dispose();
    }
  }, 60_000);

  it('Redis and Qdrant: BullMQ jobs, agent-run streams and Qdrant points of the person are gone', async () => {
    const prefix = `forget${randomUUID().slice(0, 8)}`;
    const gateway = await startTestGateway({
      modelBaseUrl: model.baseUrl,
      env: {
        NEXUS_MEMORY_EXTRACTION: 'true',
        NEXUS_REDIS_URL: REDIS_URL,
        NEXUS_REDIS_PREFIX: prefix,
        NEXUS_QDRANT_URL: qdrant.url,
        NEXUS_QDRANT_COLLECTION: `forget_${prefix}`,
        NEXUS_EMBEDDING_MODEL: 'scripted-embedder',
        NEXUS_EMBEDDING_DIMENSIONS: '64',
      },
    });
    const jobs = createBullMqJobQueue({ connection: { url: REDIS_URL }, prefix });
    try {
      const ann = await plantThroughChat(gateway.url, gateway.token);
      await waitForJobs(jobs);
      // Her agent runs' jobs were deleted as they completed; their turns' `done` markers remain.
      expect(await redisKeysContaining(redis, `${prefix}:agent.run`, MARKER)).toEqual([]);
      // One of her turns (Bob's runs leave done markers too): from the set of her recent turns.
      const keys = agentRunKeys(prefix);
      const turnId = (await redis.smembers(keys.personTurns('web:ann')))[0] ?? '';
      expect(await redis.exists(keys.done(turnId))).toBe(1);
      // What a crashed gateway and worker leave behind: inbox streams nobody reads any more,
      // holding run messages of one of her turns.
      const workerInbox = `${prefix}:agent-run:worker:dead-worker`;
      const gatewayInbox = `${prefix}:agent-run:gateway:dead-gateway`;
      const message = (value: object) => ['m', JSON.stringify(value)];
      await redis.xadd(
        gatewayInbox,
        '*',
        ...message({ turnId, runId: 'run-dead', seq: 0, kind: 'start', attempt: 1, replyTo: workerInbox }),
      );
      await redis.xadd(
        gatewayInbox,
        '*',
        ...message({ turnId, runId: 'run-dead', seq: 1, kind: 'delta', text: MARKER }),
      );
      await redis.xadd(
        workerInbox,
        '*',
        ...message({ runId: 'run-dead', kind: 'tool-result', callId: 'c1', output: MARKER }),
      );

      expect((await redisKeysContaining(redis, prefix, MARKER)).length).toBeGreaterThan(3);
      expect(qdrantPointsContaining(qdrant.collections, MARKER)).not.toEqual([]);

      const reply = await forgetAnn(ann);
      expect(reply).toMatch(/- memories: 1\n/);
      expect(reply).toMatch(/- media files: 1\n/);
      // Two extraction jobs, the list of her recent turns, the dead inboxes' three entries and the
      // two turns' done markers.
      const redisCount = Number(/- queued work and reply streams on Redis: (\d+)\n/.exec(reply)?.[1]);
      expect(redisCount).toBeGreaterThanOrEqual(7);

      expect(await redisKeysContaining(redis, prefix, MARKER)).toEqual([]);
      expect(await redisKeysContaining(redis, prefix, KEPT)).not.toEqual([]);
      expect(qdrantPointsContaining(qdrant.collections, MARKER)).toEqual([]);
      expect(await filesContaining(gateway.config.dataDir, MARKER)).toEqual([]);
    } finally {
      await jobs.close();
      await gateway.dispose();
      const keys = await redis.keys(`${prefix}:*`);
      if (keys.length > 0) await redis.del(...keys);
    }
  }, 60_000);
});
