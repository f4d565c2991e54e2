import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../composition/create-logger.ts';
import { PSEUDONYM_KEY_FILE, platformIdPseudonymiser } from './platform-id-pseudonym.ts';

const NUMBER = '31612345678';
let dataDir: string | undefined;
afterEach(async () => {
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
  dataDir = undefined;
});

function loggerInto(directory: string) {
  const lines: Array<Record<string, unknown>> = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  const logger = createLogger(
    { level: 'info', pretty: false },
    destination,
    platformIdPseudonymiser(directory),
  );
  return { logger, lines };
}

describe('platform ids in logs', () => {
  it('are logged as keyed pseudonyms, stable per data directory, the key kept 0600 beside the data', async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'nexus-pseudonym-'));
    const { logger, lines } = loggerInto(dataDir);
    logger.info(
      {
        userId: `whatsapp:${NUMBER}`,
        intentId: `${NUMBER}@s.whatsapp.net/3EB0C4`,
        nested: { chatId: NUMBER },
        apiKey: 'sk-secret',
        code: 'rate_limited',
      },
      'core rejected a whatsapp message',
    );
    logger.info({ sender: `whatsapp:${NUMBER}` }, 'link code entered');
    const text = JSON.stringify(lines);
    expect(text).not.toContain(NUMBER);
    expect(text).not.toContain('sk-secret');
    const [first, second] = lines;
    expect(first).toMatchObject({ code: 'rate_limited', apiKey: '[redacted]' });
    expect(first?.userId).toMatch(/^id:[0-9a-f]{16}$/u);
    expect((first?.nested as { chatId?: string } | undefined)?.chatId).toMatch(/^id:[0-9a-f]{16}$/u);
    // One person, one pseudonym: lines still go together.
    expect(second?.sender).toBe(first?.userId);
    expect((await stat(join(dataDir, PSEUDONYM_KEY_FILE))).mode & 0o777).toBe(0o600);
    expect((await readFile(join(dataDir, PSEUDONYM_KEY_FILE), 'utf8')).trim()).toMatch(/^[0-9a-f]{64}$/u);

    // Another installation (another key) gives another pseudonym: a guessed number cannot be checked.
    const other = await mkdtemp(join(tmpdir(), 'nexus-pseudonym-'));
    try {
      expect(platformIdPseudonymiser(other)(`whatsapp:${NUMBER}`)).not.toBe(first?.userId);
    } finally {
      await rm(other, { recursive: true, force: true });
    }
  });

  it('gives an id the same pseudonym after thousands of other ids have been seen since', async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'nexus-pseudonym-'));
    const pseudonymise = platformIdPseudonymiser(dataDir);
    const first = pseudonymise(`whatsapp:${NUMBER}`);
    const others = new Set<string>();
    for (let index = 0; index < 5_000; index += 1) others.add(pseudonymise(`telegram:${index}`));
    expect(others.size).toBe(5_000);
    expect(others.has(first)).toBe(false);
    // Long out of the recent ones: made again from the key, not from memory, and the same.
    expect(pseudonymise(`whatsapp:${NUMBER}`)).toBe(first);
    expect(platformIdPseudonymiser(dataDir)(`whatsapp:${NUMBER}`)).toBe(first);
  });
});
