import { readdir, readFile } from 'node:fs/promises';
import { makeFilterChainBombPdf, makePdf } from '@nexus/testkit/media';
import { describe, expect, it } from 'vitest';
import { extractPdfText } from './extract-pdf-text.ts';
import { MAX_PDF_READERS, pdfReaderSlotHolders } from './pdf-reader-slots.ts';

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
      ...[1, 2, 3, 4].map((sender) =>
        extractPdfText({ ...options, personId: `sender-${sender}`, bytes: bomb }),
      ),
      extractPdfText({ ...options, personId: 'sender-5', bytes: makePdf(['Still readable.']) }),
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

describe.skipIf(process.platform !== 'linux')('PDF reader slots', () => {
  it('gives one person one slot at a time: their second file waits, another person reads at once', async () => {
    const bomb = await makeFilterChainBombPdf(1024 * 1024 * 1024, 'flate-flate');
    let twice = false;
    let watching = true;
    const watch = (async () => {
      while (watching) {
        const holders = pdfReaderSlotHolders();
        if (holders.filter((holder) => holder === 'heavy-sender').length > 1) twice = true;
        await new Promise((resolve) => setTimeout(resolve, 2));
      }
    })();
    const options = { maxPages: 5, maxChars: 10_000, timeoutMs: 60_000 };
    const settled: string[] = [];
    const track = (label: string, work: Promise<unknown>) =>
      work.then(
        () => settled.push(label),
        () => settled.push(label),
      );
    await Promise.all([
      track('heavy 1', extractPdfText({ ...options, personId: 'heavy-sender', bytes: bomb })),
      track('heavy 2', extractPdfText({ ...options, personId: 'heavy-sender', bytes: bomb })),
      track(
        'other',
        extractPdfText({ ...options, personId: 'other-sender', bytes: makePdf(['Not kept waiting.']) }),
      ),
    ]);
    watching = false;
    await watch;
    expect(twice).toBe(false);
    // The other person's file ran beside the first bomb, not after both.
    expect(settled.indexOf('other')).toBeLessThan(settled.indexOf('heavy 2'));
    expect(pdfReaderSlotHolders()).toEqual([]);
  });
});
