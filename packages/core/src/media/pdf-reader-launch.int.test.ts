import { fork } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makePdf } from '@nexus/testkit/media';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { extractPdfText } from './extract-pdf-text.ts';
import { pdfReaderLaunch } from './pdf-reader-launch.ts';

// The PDF reader's process runs with what `pdfReaderLaunch` gives it. A probe started the same
// way reports what it can see: the environment and the files a parser bug could reach.

const PROBE = `
import { readFileSync, writeFileSync } from 'node:fs';
const attempt = (work) => { try { work(); return 'allowed'; } catch (error) { return error.code ?? String(error); } };
const [secretFile, ownScript, writeTarget] = process.argv.slice(2);
process.send({
  env: process.env,
  readSecret: attempt(() => readFileSync(secretFile)),
  readOwnScript: attempt(() => readFileSync(ownScript)),
  write: attempt(() => writeFileSync(writeTarget, 'x')),
}, () => process.disconnect());
`;

let folder: string;
beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'nexus-pdf-launch-'));
});
afterAll(async () => {
  await rm(folder, { recursive: true, force: true });
});

function probe(script: string, args: string[]): Promise<Record<string, unknown>> {
  const launch = pdfReaderLaunch(script, 64);
  return new Promise((resolve, reject) => {
    const child = fork(script, args, {
      execArgv: launch.execArgv,
      env: launch.env,
      stdio: ['ignore', 'ignore', 'ignore', 'ipc'],
    });
    child.once('message', (message) => resolve(message as Record<string, unknown>));
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`probe exited with ${code}`)));
  });
}

describe('the PDF reader process', () => {
  it('sees none of the gateway environment and cannot read or write the data directory', async () => {
    const dataDir = join(folder, 'data');
    await mkdir(dataDir);
    const secretFile = join(dataDir, 'web-token');
    await writeFile(secretFile, 'the-web-token');
    const script = join(folder, 'probe.mjs');
    await writeFile(script, PROBE);
    process.env.NEXUS_PDF_PROBE_SECRET = 'bot-token-that-must-not-leak';
    try {
      const seen = await probe(script, [secretFile, script, join(dataDir, 'written')]);
      expect(JSON.stringify(seen.env)).not.toContain('bot-token-that-must-not-leak');
      expect(Object.keys(seen.env as object)).toEqual([]);
      expect(seen.readOwnScript).toBe('allowed');
      expect(seen.readSecret).toBe('ERR_ACCESS_DENIED');
      expect(seen.write).toBe('ERR_ACCESS_DENIED');
    } finally {
      delete process.env.NEXUS_PDF_PROBE_SECRET;
    }
  });

  it('still reads a PDF under those restrictions', async () => {
    const pdf = await extractPdfText({
      bytes: makePdf(['Readable without privileges.']),
      personId: 'launch-test',
      maxPages: 5,
      maxChars: 1000,
      timeoutMs: 60_000,
    });
    expect(pdf.text).toContain('Readable without privileges.');
  });
});
