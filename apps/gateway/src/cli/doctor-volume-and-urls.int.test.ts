import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type ScriptedModelServer, startScriptedModelServer } from '@nexus/testkit/llm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// `nexus doctor` run as its own process, as the owner would from a shell: it measures the data
// directory's volume with statfs, and never prints the credentials a configured URL carries.

const CLI = fileURLToPath(new URL('../cli.ts', import.meta.url));

let dataDir: string;
let model: ScriptedModelServer;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'nexus-doctor-'));
  model = await startScriptedModelServer({ models: ['scripted'] });
});
afterAll(async () => {
  await model.close();
  await rm(dataDir, { recursive: true, force: true });
});

function doctor(env: Record<string, string>): Promise<{ code: number; stdout: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [CLI, 'doctor'],
      { env: { PATH: process.env.PATH ?? '', NEXUS_DATA_DIR: dataDir, ...env }, timeout: 20_000 },
      (error, stdout) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout }),
    );
  });
}

describe('nexus doctor', () => {
  it('says how much room the data volume has, and warns when it is below NEXUS_DATA_MIN_FREE_MB', async () => {
    const roomy = await doctor({});
    expect(roomy.stdout).toMatch(/✓ data volume: [\d.]+ [KMGT]iB free of [\d.]+ [KMGT]iB at /);

    // 10 TB: more than this machine's volume has free, so the real statfs figure is "nearly full".
    const tight = await doctor({ NEXUS_DATA_MIN_FREE_MB: '10000000' });
    expect(tight.stdout).toMatch(
      /! data volume: data volume nearly full \([\d.]+ [KMGT]iB free of [\d.]+ [KMGT]iB, below NEXUS_DATA_MIN_FREE_MB=10000000\) at .*\n {4}fix: delete what is not needed on that volume or grow it \(or lower NEXUS_DATA_MIN_FREE_MB\)/,
    );
  });

  it('prints a model URL without the user and password embedded in it', async () => {
    const { port } = new URL(model.baseUrl);
    const result = await doctor({
      NEXUS_MODEL_PROVIDER: 'openai-compatible',
      NEXUS_MODEL_BASE_URL: `http://nexus-user:hunter2-secret@127.0.0.1:${port}/v1`,
      NEXUS_MODEL: 'scripted',
    });
    expect(result.stdout).toContain(
      `✗ model: cannot reach openai-compatible at http://127.0.0.1:${port}/v1 (`,
    );
    expect(result.stdout).not.toContain('hunter2-secret');
    expect(result.stdout).not.toContain('nexus-user');
  });
});
