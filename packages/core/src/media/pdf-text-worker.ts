import { parentPort, workerData } from 'node:worker_threads';
import { getDocumentProxy } from 'unpdf';

/** Runs in a worker thread (see extract-pdf-text.ts): pdf.js parsing is synchronous and unbounded. */
interface PdfJob {
  bytes: Uint8Array;
  maxPages: number;
  maxChars: number;
}

const job = workerData as PdfJob;
try {
  const document = await getDocumentProxy(job.bytes);
  const pages = Math.min(document.numPages, job.maxPages);
  let text = '';
  for (let number = 1; number <= pages && text.length < job.maxChars; number += 1) {
    const page = await document.getPage(number);
    const content = await page.getTextContent();
    const line = content.items.map((item) => ('str' in item ? item.str : '')).join(' ');
    text += `${line}\n`;
    page.cleanup();
  }
  parentPort?.postMessage({
    ok: true,
    text: text.slice(0, job.maxChars),
    pages: document.numPages,
    read: pages,
  });
} catch (error) {
  parentPort?.postMessage({ ok: false, message: error instanceof Error ? error.message : String(error) });
}
