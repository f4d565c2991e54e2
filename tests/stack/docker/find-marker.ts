// Run by the stack test inside the stack's own network (a throw-away container with the secrets
// mounted): prints, as JSON, every Redis key and every Qdrant point whose stored value contains
// the marker given as the first argument. Reads every Redis value by its type, and scrolls every
// Qdrant collection with payloads, so a forgotten person leaves no live trace in either.
import { readFileSync } from 'node:fs';
import { Redis } from 'ioredis';

const marker = process.argv[2] ?? '';
if (marker.length < 8) throw new Error('usage: find-marker.ts MARKER (at least 8 characters)');
const secret = (name: string) => readFileSync(`/run/secrets/${name}`, 'utf8').trim();

async function redisHits(): Promise<string[]> {
  const redis = new Redis('redis://redis:6379', { password: secret('redis-password'), lazyConnect: true });
  await redis.connect();
  const hits: string[] = [];
  try {
    for await (const keys of redis.scanStream({ count: 500 }) as AsyncIterable<string[]>) {
      for (const key of keys) {
        const type = await redis.type(key);
        const value =
          type === 'string'
            ? await redis.getBuffer(key).then((buffer) => buffer?.toString('utf8'))
            : type === 'hash'
              ? await redis.hgetall(key)
              : type === 'list'
                ? await redis.lrange(key, 0, -1)
                : type === 'set'
                  ? await redis.smembers(key)
                  : type === 'zset'
                    ? await redis.zrange(key, 0, -1)
                    : type === 'stream'
                      ? await redis.xrange(key, '-', '+')
                      : undefined;
        if (`${key} ${JSON.stringify(value)}`.includes(marker)) hits.push(`${type} ${key}`);
      }
    }
  } finally {
    redis.disconnect();
  }
  return hits;
}

async function qdrantHits(): Promise<string[]> {
  const headers = { 'api-key': secret('qdrant-api-key'), 'content-type': 'application/json' };
  const call = async (path: string, body?: unknown) => {
    const response = await fetch(`http://qdrant:6333${path}`, {
      method: body ? 'POST' : 'GET',
      headers,
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    if (!response.ok) throw new Error(`qdrant ${path}: ${response.status} ${await response.text()}`);
    return ((await response.json()) as { result: never }).result;
  };
  const hits: string[] = [];
  const { collections } = (await call('/collections')) as { collections: Array<{ name: string }> };
  for (const { name } of collections) {
    let offset: unknown = null;
    do {
      const page = (await call(`/collections/${name}/points/scroll`, {
        limit: 256,
        with_payload: true,
        ...(offset === null ? {} : { offset }),
      })) as { points: Array<{ id: unknown; payload: unknown }>; next_page_offset: unknown };
      for (const point of page.points) {
        if (JSON.stringify(point.payload).includes(marker)) hits.push(`${name}/${String(point.id)}`);
      }
      offset = page.next_page_offset;
    } while (offset !== null && offset !== undefined);
  }
  return hits;
}

process.stdout.write(`${JSON.stringify({ redis: await redisHits(), qdrant: await qdrantHits() })}\n`);
