import { parentPort, workerData } from 'node:worker_threads';
import { inflateSync } from 'node:zlib';
import { getDocumentProxy } from 'unpdf';

/** Runs in a worker thread (see extract-pdf-text.ts): pdf.js parsing is synchronous and unbounded. */
interface PdfJob {
  bytes: Uint8Array;
  maxPages: number;
  maxChars: number;
  maxInflatedBytes: number;
}

const job = workerData as PdfJob;
try {
  if (
    inflatesBeyond(
      Buffer.from(job.bytes.buffer, job.bytes.byteOffset, job.bytes.byteLength),
      job.maxInflatedBytes,
    )
  ) {
    parentPort?.postMessage({
      ok: false,
      bomb: true,
      message: 'its compressed streams expand beyond the limit',
    });
  } else {
    const document = await getDocumentProxy(job.bytes);
    const pages = Math.min(document.numPages, job.maxPages);
    let text = '';
    for (let number = 1; number <= pages && text.length < job.maxChars; number += 1) {
      const page = await document.getPage(number);
      const content = await page.getTextContent();
      text += `${content.items.map((item) => ('str' in item ? item.str : '')).join(' ')}\n`;
      page.cleanup();
    }
    parentPort?.postMessage({
      ok: true,
      text: text.slice(0, job.maxChars),
      pages: document.numPages,
      read: pages,
    });
  }
} catch (error) {
  parentPort?.postMessage({ ok: false, message: error instanceof Error ? error.message : String(error) });
}

/**
 * pdf.js inflates a stream whole into an ArrayBuffer, which a worker's heap limit does not
 * count, so a decompression bomb is caught here first: every stream is inflated with zlib's
 * `maxOutputLength` against one budget for the whole file. Streams that are not zlib fail fast
 * and are left to pdf.js.
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
