import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SqliteMemoryStore } from '@nexus/memory';
import { afterEach, describe, expect, it } from 'vitest';
import { openMemoryStore } from '../composition/memory/choose-embedder-and-store.ts';
import { loadConfig } from './load-config.ts';

const dataDirs: string[] = [];
afterEach(() => {
  for (const dir of dataDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function storeWith(env: Record<string, string>): Promise<SqliteMemoryStore> {
  const dataDir = mkdtempSync(join(tmpdir(), 'nexus-vector-cache-'));
  dataDirs.push(dataDir);
  const config = loadConfig({ env: { NEXUS_DATA_DIR: dataDir, ...env } });
  return (await openMemoryStore(config, { embedderId: 'test', dimensions: 8 })) as SqliteMemoryStore;
}

describe('NEXUS_MEMORY_VECTOR_CACHE_MB', () => {
  it('sizes the embedded store’s vector index budget, and 0 turns the indexes off', async () => {
    const standard = await storeWith({});
    expect(standard.vectorCacheStats()?.maxBytes).toBe(64 * 1024 * 1024);
    await standard.close();
    const small = await storeWith({ NEXUS_MEMORY_VECTOR_CACHE_MB: '3' });
    expect(small.vectorCacheStats()?.maxBytes).toBe(3 * 1024 * 1024);
    await small.close();
    const off = await storeWith({ NEXUS_MEMORY_VECTOR_CACHE_MB: '0' });
    expect(off.vectorCacheStats()).toBeUndefined();
    await off.close();
  });

  it('names the key when the value is not a number of megabytes', () => {
    expect(() => loadConfig({ env: { NEXUS_MEMORY_VECTOR_CACHE_MB: 'lots' } })).toThrow(
      /NEXUS_MEMORY_VECTOR_CACHE_MB/,
    );
  });
});
