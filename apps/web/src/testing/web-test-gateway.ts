import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig, type RunningGateway, startGateway } from '@nexus/gateway';
import type { ScriptedModelServer } from '@nexus/testkit/llm';
import { build } from 'vite';

const webRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/**
 * The web client built from this checkout into a new temporary folder (`workDir`, which the test
 * removes afterwards), as the gateway serves it: what every Chromium test opens.
 */
export async function buildWebClientForTest(name: string): Promise<{ workDir: string; webDistDir: string }> {
  const workDir = await mkdtemp(join(tmpdir(), `nexus-${name}-`));
  const webDistDir = join(workDir, 'dist');
  await build({ root: webRoot, logLevel: 'warn', build: { outDir: webDistDir, emptyOutDir: true } });
  return { workDir, webDistDir };
}

export interface WebTestGatewayOptions {
  webDistDir: string;
  dataDir: string;
  /** The scripted model the gateway talks to (OpenAI-compatible); none, and no model is set. */
  model?: ScriptedModelServer;
  /** More settings, or other values for the defaults below. */
  env?: Record<string, string>;
  /** What else `startGateway` takes (a fake WhatsApp socket, say). */
  start?: Omit<Parameters<typeof startGateway>[0], 'config' | 'webDistDir'>;
}

/**
 * A gateway serving the built client on a free port: its data in `dataDir`, no log output, a
 * message rate no test reaches, and no memory extraction (its own model calls would mix into
 * the requests tests read from the scripted model).
 */
export function startWebTestGateway(options: WebTestGatewayOptions): Promise<RunningGateway> {
  const { model } = options;
  const config = loadConfig({
    env: {
      NEXUS_PORT: '0',
      NEXUS_DATA_DIR: options.dataDir,
      NEXUS_LOG_LEVEL: 'silent',
      NEXUS_WEB_MESSAGES_PER_MINUTE: '1000',
      NEXUS_MEMORY_EXTRACTION: 'false',
      ...(model === undefined
        ? {}
        : {
            NEXUS_MODEL_PROVIDER: 'openai-compatible',
            NEXUS_MODEL_BASE_URL: model.baseUrl,
            NEXUS_MODEL: 'scripted',
          }),
      ...options.env,
    },
  });
  return startGateway({ ...options.start, config, webDistDir: options.webDistDir });
}
