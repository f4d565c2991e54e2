import { readdir, readFile } from 'node:fs/promises';
import { makeFilterChainBombPdf, makePdf } from '@nexus/testkit/media';
import { describe, expect, it } from 'vitest';
import { extractPdfText, MAX_PDF_READERS } from './extract-pdf-text.ts';

/** PDF reader processes this process has right now (Linux `/proc`). */
async function readerChildren(): Promise<number> {
  let count = 0;
  for (const entry of await readdir('/proc').catch(() => [])) {
    if (!/^\d+$/u.test(entry)) continue;
    const [status, command] = await Promise.all([
      readFile(`/proc/${entry}/status`, 'utf8').catch(() => ''),
      readFile(`/proc/${entry}/cmdline`, 'utf8').catch(() => ''),
    ]);
    if (new RegExp(`^PPid:\\s+${process.pid}$`, 'mu').test(status) && command.includes('pdf-text-child'))
      count += 1;
  }
  return count;
}

describe.skipIf(process.platform !== 'linux')('extractPdfText under load', () => {
  it('reads at most two PDFs at once: four bombs and a plain file, each answered, never more readers', async () => {
    const bomb = await makeFilterChainBombPdf(1024 * 1024 * 1024, 'flate-flate');
    let most = 0;
    let watching = true;
    const watch = (async () => {
      while (watching) {
        most = Math.max(most, await readerChildren());
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    })();
    const options = { maxPages: 5, maxChars: 10_000, timeoutMs: 60_000 };
    const outcomes = await Promise.allSettled([
      ...[1, 2, 3, 4].map(() => extractPdfText({ ...options, bytes: bomb })),
      extractPdfText({ ...options, bytes: makePdf(['Still readable.']) }),
    ]);
    watching = false;
    await watch;
    for (const outcome of outcomes.slice(0, 4))
      expect(outcome).toMatchObject({ status: 'rejected', reason: { code: 'attachment_unsupported' } });
    expect(outcomes[4]).toMatchObject({
      status: 'fulfilled',
      value: { text: expect.stringContaining('Still readable.') },
    });
    expect(most).toBeGreaterThan(0);
    expect(most).toBeLessThanOrEqual(2);
    expect(MAX_PDF_READERS).toBe(2);
    expect(await readerChildren()).toBe(0);
  });
});
