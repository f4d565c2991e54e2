import { inflateSync } from 'node:zlib';
import { getDocumentProxy } from 'unpdf';

/**
 * Runs in its own process (see extract-pdf-text.ts), started with a heap limit and watched for
 * resident size: pdf.js parsing is synchronous and unbounded, and the ArrayBuffers it decodes
 * streams into sit outside any V8 heap limit. Whatever it allocates is this process's, and the
 * parent kills it when it grows past the budget.
 */
export interface PdfJob {
  bytes: Uint8Array;
  maxPages: number;
  maxChars: number;
  maxInflatedBytes: number;
}

export type PdfJobResult =
  | { ok: true; text: string; pages: number; read: number }
  | { ok: false; bomb?: boolean; message: string };

process.once('message', (job: PdfJob) => {
  void readPdf(job).then(
    (result) => process.send?.(result, () => process.disconnect()),
    (error: unknown) =>
      process.send?.(
        { ok: false, message: error instanceof Error ? error.message : String(error) } satisfies PdfJobResult,
        () => process.disconnect(),
      ),
  );
});

async function readPdf(job: PdfJob): Promise<PdfJobResult> {
  const bytes = Buffer.from(job.bytes.buffer, job.bytes.byteOffset, job.bytes.byteLength);
  if (inflatesBeyond(bytes, job.maxInflatedBytes))
    return { ok: false, bomb: true, message: 'its compressed streams expand beyond the limit' };
  // IPC hands the bytes over as a Buffer, which pdf.js refuses: a plain view of the same memory.
  const document = await getDocumentProxy(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength));
  const pages = Math.min(document.numPages, job.maxPages);
  let text = '';
  for (let number = 1; number <= pages && text.length < job.maxChars; number += 1) {
    const page = await document.getPage(number);
    const content = await page.getTextContent();
    text += `${content.items.map((item) => ('str' in item ? item.str : '')).join(' ')}\n`;
    page.cleanup();
  }
  return { ok: true, text: text.slice(0, job.maxChars), pages: document.numPages, read: pages };
}

/**
 * A cheap early refusal for the plain case: every stream is inflated once with zlib's
 * `maxOutputLength` against one budget for the whole file. It does not follow `/Filter` chains
 * (a stream deflated twice, or hex-encoded first, passes); those are stopped by the memory limit
 * the parent enforces on this process, which holds whatever the chain decodes to.
 */
function inflatesBeyond(bytes: Buffer, budget: number): boolean {
  let left = budget;
  let from = 0;
  for (;;) {
    const start = bytes.indexOf('stream', from, 'latin1');
    if (start < 0) return false;
    const end = bytes.indexOf('endstream', start + 6, 'latin1');
    if (end < 0) return false;
    let dataStart = start + 6;
    if (bytes[dataStart] === 0x0d) dataStart += 1;
    if (bytes[dataStart] === 0x0a) dataStart += 1;
    from = end + 9;
    try {
      left -= inflateSync(bytes.subarray(dataStart, end), { maxOutputLength: Math.max(1, left) }).length;
    } catch (error) {
      if (error instanceof RangeError || (error as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE')
        return true;
      // Not zlib data (or truncated): pdf.js decides.
    }
    if (left <= 0) return true;
  }
}
