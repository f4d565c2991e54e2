import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { StandInCollection } from '@nexus/testkit/qdrant';
import type { Redis } from 'ioredis';

/** Every file of the data directory (SQLite files, their -wal and -shm included) holding `marker` as raw bytes. */
export async function filesContaining(dataDir: string, marker: string): Promise<string[]> {
  const hits: string[] = [];
  const needles = [Buffer.from(marker, 'utf8'), Buffer.from(marker.toLowerCase(), 'utf8')];
  for (const entry of await readdir(dataDir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    const bytes = await readFile(path);
    if (needles.some((needle) => bytes.includes(needle))) hits.push(path);
  }
  return hits;
}

/** The names of the SQLite files (and their WAL/shm) in the data directory, to show what was scanned. */
export async function sqliteFiles(dataDir: string): Promise<string[]> {
  return (await readdir(dataDir)).filter((name) => /\.sqlite(-wal|-shm)?$/u.test(name)).sort();
}

/** Every Redis key under `prefix` whose value (whatever its type) holds `marker`. */
export async function redisKeysContaining(redis: Redis, prefix: string, marker: string): Promise<string[]> {
  const hits: string[] = [];
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
    cursor = next;
    for (const key of keys) {
      if (key.includes(marker) || (await redisValue(redis, key)).includes(marker)) hits.push(key);
    }
  } while (cursor !== '0');
  return hits;
}

async function redisValue(redis: Redis, key: string): Promise<string> {
  const type = await redis.type(key);
  if (type === 'string') return (await redis.get(key)) ?? '';
  if (type === 'hash') return JSON.stringify(await redis.hgetall(key));
  if (type === 'list') return JSON.stringify(await redis.lrange(key, 0, -1));
  if (type === 'set') return JSON.stringify(await redis.smembers(key));
  if (type === 'zset') return JSON.stringify(await redis.zrange(key, 0, -1));
  if (type === 'stream') return JSON.stringify(await redis.xrange(key, '-', '+'));
  return '';
}

/** The stand-in's points (payloads) that hold `marker`. */
export function qdrantPointsContaining(
  collections: ReadonlyMap<string, StandInCollection>,
  marker: string,
): string[] {
  const hits: string[] = [];
  for (const [name, collection] of collections) {
    for (const [id, point] of collection.points) {
      if (JSON.stringify(point.payload).includes(marker)) hits.push(`${name}/${id}`);
    }
  }
  return hits;
}
