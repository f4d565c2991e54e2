import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { GatewayConfig } from '../config/gateway-config.ts';
import { loadConfig } from '../config/load-config.ts';
import { type RunningGateway, type StartGatewayOptions, startGateway } from '../start-gateway.ts';

export interface TestGatewayOptions {
  modelBaseUrl?: string;
  env?: Record<string, string>;
  /**
   * An existing data directory, to start a gateway again on what an earlier one stored (a
   * restart); `dispose` then leaves it for the test to remove.
   */
  dataDir?: string;
  whatsappSocketFactory?: StartGatewayOptions['whatsappSocketFactory'];
  /** Where the gateway logs (silent by default). */
  logger?: StartGatewayOptions['logger'];
}

/** Test helper: a gateway on a free port and a temporary data directory, wired to a model URL. */
export async function startTestGateway(
  options: TestGatewayOptions = {},
): Promise<RunningGateway & { config: GatewayConfig; dispose(): Promise<void> }> {
  const ownsDataDir = options.dataDir === undefined;
  const dataDir = options.dataDir ?? (await mkdtemp(join(tmpdir(), 'nexus-gateway-')));
  const modelEnv: Record<string, string> = options.modelBaseUrl
    ? {
        NEXUS_MODEL_PROVIDER: 'openai-compatible',
        NEXUS_MODEL_BASE_URL: options.modelBaseUrl,
        NEXUS_MODEL: 'scripted',
      }
    : {};
  const config = loadConfig({
    env: {
      NEXUS_PORT: '0',
      NEXUS_DATA_DIR: dataDir,
      NEXUS_WEB_MESSAGES_PER_MINUTE: '100000',
      NEXUS_LOG_LEVEL: 'silent',
      // Extraction would send its own requests to the shared scripted model; memory tests turn it on.
      NEXUS_MEMORY_EXTRACTION: 'false',
      ...modelEnv,
      ...options.env,
    },
  });
  const gateway = await startGateway({
    config,
    ...(options.whatsappSocketFactory ? { whatsappSocketFactory: options.whatsappSocketFactory } : {}),
    ...(options.logger ? { logger: options.logger } : {}),
  });
  return {
    ...gateway,
    config,
    async dispose() {
      await gateway.close();
      if (ownsDataDir) await rm(dataDir, { recursive: true, force: true });
    },
  };
}
