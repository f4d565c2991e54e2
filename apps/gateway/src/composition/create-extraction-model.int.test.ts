import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Logger } from '@nexus/protocol';
import { type ScriptedModelServer, startScriptedModelServer } from '@nexus/testkit/llm';
import { generateText } from 'ai';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { doctorCommand } from '../cli/doctor-command.ts';
import { loadConfig } from '../config/load-config.ts';
import { scriptedProviderEnv } from '../testing/memory-test-support.ts';
import { chooseExtractionModel } from './choose-extraction-model.ts';
import { createExtractionModel } from './create-extraction-model.ts';
import { createLanguageModel } from './create-language-model.ts';

let dataDir: string;
let server: ScriptedModelServer;
beforeEach(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'nexus-extraction-model-'));
  server = await startScriptedModelServer({ models: ['qwen2.5:14b', 'qwen2.5:7b'] });
});
afterEach(async () => {
  await server.close();
  await rm(dataDir, { recursive: true, force: true });
});

const envFor = (extra: Record<string, string> = {}) => ({
  ...scriptedProviderEnv(dataDir, server.baseUrl),
  NEXUS_MODEL: 'qwen2.5:14b',
  ...extra,
});
const warnings: string[] = [];
const logger: Logger = {
  debug() {},
  info() {},
  warn: (_object, message) => void warnings.push(message ?? ''),
  error() {},
  child: () => logger,
};
async function extractionModel(extra: Record<string, string> = {}) {
  const config = loadConfig({ env: envFor(extra) });
  const chatModel = await createLanguageModel(config.model);
  return createExtractionModel({ config, chatModel, logger });
}
/** The model named by each chat request the provider received. */
const modelsAsked = () => server.chatRequests().map((request) => (request.body as { model: string }).model);
/** Ollama's answer for a model that is not pulled. */
const notPulled = (model: string) => ({
  status: 404,
  errorBody: JSON.stringify({ error: { message: `model "${model}" not found, try pulling it first` } }),
});

describe('the extraction model', () => {
  it('is the chat model’s cheaper sibling by the table, the chat model without one, the operator’s when set', () => {
    const pick = (
      provider: 'openai' | 'anthropic' | 'openai-compatible',
      name: string,
      configured?: string,
    ) => chooseExtractionModel({ provider, name, tools: true } as never, configured)?.name;
    expect(pick('openai', 'gpt-4o')).toBe('gpt-4o-mini');
    expect(pick('openai', 'gpt-4o-2024-08-06')).toBe('gpt-4o-mini');
    expect(pick('openai', 'gpt-4.1')).toBe('gpt-4.1-mini');
    expect(pick('openai', 'gpt-5')).toBe('gpt-5-mini');
    expect(pick('anthropic', 'claude-sonnet-4-5')).toBe('claude-haiku-4-5');
    expect(pick('anthropic', 'claude-opus-4-1-20250805')).toBe('claude-haiku-4-5');
    expect(pick('openai-compatible', 'qwen2.5:14b')).toBe('qwen2.5:7b');
    expect(pick('openai-compatible', 'llama3.2:3b')).toBe('llama3.2:3b');
    expect(pick('openai', 'gpt-4o-mini')).toBe('gpt-4o-mini');
    expect(pick('openai', 'gpt-4o', 'gpt-4.1-nano')).toBe('gpt-4.1-nano');
  });

  it('runs on the cheaper sibling the provider serves', async () => {
    const model = await extractionModel();
    await generateText({ model: model!, prompt: 'extract' });
    expect(modelsAsked()).toEqual(['qwen2.5:7b']);
  });

  it('falls back to the chat model, once and for good, when the provider does not serve the sibling', async () => {
    warnings.length = 0;
    server.setResponder((request) =>
      request.model === 'qwen2.5:7b' ? notPulled('qwen2.5:7b') : { text: `answered by ${request.model}` },
    );
    const model = await extractionModel();
    expect((await generateText({ model: model!, prompt: 'extract' })).text).toBe('answered by qwen2.5:14b');
    expect((await generateText({ model: model!, prompt: 'again' })).text).toBe('answered by qwen2.5:14b');
    expect(modelsAsked()).toEqual(['qwen2.5:7b', 'qwen2.5:14b', 'qwen2.5:14b']);
    expect(warnings.filter((line) => line.includes('cheaper extraction model'))).toHaveLength(1);
  });

  it('never replaces the operator’s NEXUS_EXTRACTION_MODEL, and a 500 is not a missing model', async () => {
    server.setResponder((request) =>
      request.model === 'qwen2.5:7b' ? notPulled('qwen2.5:7b') : { text: 'chat' },
    );
    const configured = await extractionModel({ NEXUS_EXTRACTION_MODEL: 'qwen2.5:7b' });
    await expect(generateText({ model: configured!, prompt: 'x', maxRetries: 0 })).rejects.toThrow(
      /not found/u,
    );
    expect(modelsAsked()).toEqual(['qwen2.5:7b']);

    server.setResponder(() => ({ status: 500 }));
    const sibling = await extractionModel();
    await expect(generateText({ model: sibling!, prompt: 'x', maxRetries: 0 })).rejects.toThrow(/500/u);
    expect(modelsAsked().slice(1)).toEqual(['qwen2.5:7b']);
  });

  it('is named with its reason by nexus doctor', async () => {
    let stdout = '';
    const run = (extra: Record<string, string> = {}) =>
      doctorCommand({
        config: { env: envFor(extra) },
        output: { out: (text) => (stdout += text), error: () => {} },
      });
    await run();
    expect(stdout).toContain(
      'extraction model: qwen2.5:7b (the cheaper sibling of qwen2.5:14b at openai-compatible; qwen2.5:14b if the provider does not serve it; NEXUS_EXTRACTION_MODEL overrides)',
    );
    stdout = '';
    await run({ NEXUS_EXTRACTION_MODEL: 'qwen2.5:14b' });
    expect(stdout).toContain('extraction model: qwen2.5:14b (NEXUS_EXTRACTION_MODEL is set)');
  });

  it('is the chat model in nexus doctor when the provider does not list the sibling, with the fix', async () => {
    await server.close();
    server = await startScriptedModelServer({ models: ['qwen2.5:14b'] });
    let stdout = '';
    await doctorCommand({
      config: { env: envFor() },
      output: { out: (text) => (stdout += text), error: () => {} },
    });
    expect(stdout).toContain(
      '! extraction model: qwen2.5:14b (the provider does not list qwen2.5:7b, the cheaper sibling of qwen2.5:14b, so extraction falls back to the chat model)\n    fix: pull it (e.g. `ollama pull qwen2.5:7b`)',
    );
  });
});
