import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { silentLogger } from '@nexus/protocol';
import { DEFAULT_MAX_JOB_PAYLOAD_BYTES } from '@nexus/queue-kit';
import { echoResponse, type ScriptedModelServer, startScriptedModelServer } from '@nexus/testkit/llm';
import { type FakeTelegram, startFakeTelegram } from '@nexus/testkit/telegram';
import { Redis } from 'ioredis';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../config/load-config.ts';
import { type RunningWorker, startWorker } from '../roles/start-worker.ts';
import { type RunningGateway, startGateway } from '../start-gateway.ts';

// Finding 1 of issue 41: photos must not fill Redis. A gateway and a worker meet over the real
// Redis, the model has vision, and one person sends 20 photos of 20 MB each on Telegram. What
// this deployment keeps in Redis (every key under its prefix, measured with MEMORY USAGE while
// the photos are answered) must stay under REDIS_BOUND, and no job payload may pass the cap.

const REDIS_URL = 'redis://127.0.0.1:6379';
const MB = 1024 * 1024;
/** The stated bound: a scaled photo passing through an inbox, plus the queues' bookkeeping. */
const REDIS_BOUND = 16 * MB;
const CHAT = 7070;
const prefix = `nexus-photos-${randomBytes(4).toString('hex')}`;

let model: ScriptedModelServer;
let telegram: FakeTelegram;
let redis: Redis;
let dataDir: string;
let gateway: RunningGateway | undefined;
let worker: RunningWorker | undefined;

beforeAll(async () => {
  model = await startScriptedModelServer();
  telegram = await startFakeTelegram();
  redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
  dataDir = await mkdtemp(join(tmpdir(), 'nexus-photos-'));
  const env = {
    NEXUS_PORT: '0',
    NEXUS_DATA_DIR: dataDir,
    NEXUS_LOG_LEVEL: 'silent',
    NEXUS_MEMORY_EXTRACTION: 'false',
    NEXUS_MODEL_PROVIDER: 'openai-compatible',
    NEXUS_MODEL_BASE_URL: model.baseUrl,
    NEXUS_MODEL: 'scripted',
    NEXUS_MODEL_VISION: 'true',
    NEXUS_REDIS_URL: REDIS_URL,
    NEXUS_REDIS_PREFIX: prefix,
    NEXUS_TELEGRAM_BOT_TOKEN: telegram.token,
    NEXUS_TELEGRAM_API_ROOT: telegram.apiRoot,
    NEXUS_TELEGRAM_DM_POLICY: 'open',
    NEXUS_RATE_LIMIT_PER_MINUTE: '100000',
    NEXUS_RATE_LIMIT_BURST: '1000',
    // The scripted model counts an image's base64 as prompt text, a real provider about 1,600 tokens.
    NEXUS_DAILY_TOKENS_PER_PERSON: 'off',
  };
  gateway = await startGateway({ config: loadConfig({ env: { ...env, NEXUS_ROLE: 'gateway' } }) });
  worker = await startWorker({
    config: loadConfig({
      env: { ...env, NEXUS_ROLE: 'worker', NEXUS_TELEGRAM_BOT_TOKEN: '', NEXUS_HOST: '127.0.0.1' },
    }),
    logger: silentLogger,
  });
}, 60_000);

afterAll(async () => {
  await worker?.close();
  await gateway?.close();
  let cursor = '0';
  do {
    const [next, found] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
    cursor = next;
    if (found.length > 0) await redis.del(...found);
  } while (cursor !== '0');
  redis.disconnect();
  await Promise.all([telegram?.close(), model?.close()]);
  await rm(dataDir, { recursive: true, force: true });
});

/** A PNG of random pixels just under 20 MB: like a large photo, it does not compress. */
async function twentyMegabytePhoto(): Promise<Uint8Array> {
  const side = 2600;
  const png = await sharp(randomBytes(side * side * 3), { raw: { width: side, height: side, channels: 3 } })
    .png({ compressionLevel: 0 })
    .toBuffer();
  return new Uint8Array(png);
}

/** What this deployment holds in Redis now: every key under its prefix, and its largest job. */
async function redisFootprint(): Promise<{ bytes: number; largestPayload: number }> {
  let bytes = 0;
  let largestPayload = 0;
  let cursor = '0';
  do {
    const [next, found] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
    cursor = next;
    for (const key of found) {
      bytes += Number((await redis.memory('USAGE', key, 'SAMPLES', '0')) ?? 0);
      // A BullMQ job is a hash whose `data` field holds the payload JSON.
      if (/:agent\.run:[^:]+$/u.test(key) && (await redis.type(key)) === 'hash')
        largestPayload = Math.max(largestPayload, await redis.hstrlen(key, 'data'));
    }
  } while (cursor !== '0');
  return { bytes, largestPayload };
}

describe('photos through a gateway and a worker on Redis', () => {
  it('answers 20 photos of 20 MB with Redis under its bound and every job payload under the cap', async () => {
    const photos = [await twentyMegabytePhoto(), await twentyMegabytePhoto()];
    for (const photo of photos) {
      expect(photo.byteLength).toBeGreaterThan(19 * MB);
      expect(photo.byteLength).toBeLessThan(20 * MB);
    }
    const files = photos.map((content, index) =>
      telegram.addFile({ content, filePath: `photos/file_${index}.png` }),
    );
    let most = { bytes: 0, largestPayload: 0 };
    const sample = async () => {
      const now = await redisFootprint();
      most = {
        bytes: Math.max(most.bytes, now.bytes),
        largestPayload: Math.max(most.largestPayload, now.largestPayload),
      };
      return now;
    };
    // One sample while each run's model call is in flight, when its agent.run job is running and
    // so in Redis for sure (the sampler on a timer alone once saw none of the 20 under a loaded CI).
    const payloadsInFlight: number[] = [];
    model.setResponder(async (request) => {
      payloadsInFlight.push((await sample()).largestPayload);
      return echoResponse(request);
    });
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        await sample();
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    })();
    try {
      for (let index = 0; index < 20; index += 1) {
        telegram.pushMessage({
          chat: { id: CHAT, type: 'private' },
          photo: files[index % 2]!,
          caption: `photo ${index}`,
        });
        const reply = await telegram.waitFor(
          () => telegram.botMessages(CHAT).find((message) => message.text.includes(`Echo: photo ${index}`)),
          { timeoutMs: 60_000 },
        );
        expect(reply?.text).toContain(`Echo: photo ${index}`);
        expect(most.bytes, `Redis after photo ${index + 1}`).toBeLessThan(REDIS_BOUND);
      }
    } finally {
      sampling = false;
      await sampler;
    }
    // Each request carried the photo, scaled to what the provider takes, from the gateway.
    const requests = model.chatRequests();
    expect(requests).toHaveLength(20);
    for (const request of requests) {
      const url = /data:image\/jpeg;base64,([A-Za-z0-9+/=]+)/u.exec(JSON.stringify(request.body))?.[1];
      expect(url).toBeDefined();
      const { width, height } = await sharp(Buffer.from(url ?? '', 'base64')).metadata();
      expect(Math.max(width ?? 0, height ?? 0)).toBe(1568);
    }
    expect(payloadsInFlight).toHaveLength(20);
    for (const payload of payloadsInFlight) expect(payload).toBeGreaterThan(0);
    expect(most.largestPayload).toBeGreaterThan(0);
    expect(most.largestPayload).toBeLessThan(DEFAULT_MAX_JOB_PAYLOAD_BYTES);
    // Done runs leave no job behind; what is left is bookkeeping.
    expect((await redisFootprint()).bytes).toBeLessThan(2 * MB);
    console.info(
      `photos: most Redis held under the prefix ${(most.bytes / MB).toFixed(2)} MB (bound ${REDIS_BOUND / MB} MB), largest agent.run payload ${most.largestPayload} bytes`,
    );
  }, 300_000);
});
