import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../config/load-config.ts';
import { createGatewayEmbedder } from './choose-embedder-and-store.ts';
import { loadTransformersAddon, TRANSFORMERS_ADDON } from './load-transformers-addon.ts';

let dataDir: string;
beforeEach(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'nexus-embedder-'));
});
afterEach(async () => {
  await rm(dataDir, { recursive: true, force: true });
});

describe('NEXUS_EMBEDDING_PROVIDER=transformers', () => {
  it('needs no base URL, caches in <dataDir>/models and, offline and uncached, fails clearly', async () => {
    const config = loadConfig({
      env: {
        NEXUS_DATA_DIR: dataDir,
        NEXUS_EMBEDDING_PROVIDER: 'transformers',
        NEXUS_EMBEDDING_MODEL: 'Xenova/all-MiniLM-L6-v2',
        NEXUS_EMBEDDING_DIMENSIONS: '384',
        NEXUS_EMBEDDING_ALLOW_DOWNLOAD: 'false',
      },
    });
    const embedder = await createGatewayEmbedder(config);
    expect(embedder).toMatchObject({ id: 'transformers:Xenova/all-MiniLM-L6-v2', dimensions: 384 });
    await expect(embedder?.embed({ texts: ['hello'] })).rejects.toThrow(
      `"Xenova/all-MiniLM-L6-v2" could not be loaded from the cache at ${join(dataDir, 'models')} (downloads are off)`,
    );
  });

  it('without the add-on installed, refuses with its package name and the install command', async () => {
    // The add-on is installed in this checkout; an uninstalled package name stands in for its absence.
    const error = await loadTransformersAddon('@nexus/embedder-transformers-not-installed').catch(
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).message).toContain(TRANSFORMERS_ADDON);
    expect((error as ConfigError).message).toContain('pnpm embedder:install');
    expect((error as ConfigError).cause).toMatchObject({ code: 'ERR_MODULE_NOT_FOUND' });
  });

  it('rejects an unknown provider with the setting named', () => {
    expect(() => loadConfig({ env: { NEXUS_DATA_DIR: dataDir, NEXUS_EMBEDDING_PROVIDER: 'magic' } })).toThrow(
      /NEXUS_EMBEDDING_PROVIDER/,
    );
  });
});
