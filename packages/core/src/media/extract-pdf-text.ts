import { Worker } from 'node:worker_threads';
import { NexusError } from '@nexus/protocol';

export interface PdfText {
  text: string;
  /** Pages in the document. */
  pages: number;
  /** Pages read (the rest was over the cap). */
  pagesRead: number;
}

export interface ExtractPdfTextOptions {
  bytes: Uint8Array;
  maxPages: number;
  maxChars: number;
  timeoutMs: number;
  /** All streams of the file together may inflate to this much; more is a decompression bomb. */
  maxInflatedBytes?: number;
  /** Heap of the worker: a crafted file that makes pdf.js build huge objects ends the worker, not the gateway. */
  maxHeapMb?: number;
}

/**
 * PDF text through pdf.js (via `unpdf`) in a worker thread with a heap limit and a deadline:
 * a huge, crafted or compressed-bomb PDF ends the worker, never the conversation lane.
 */
export function extractPdfText(options: ExtractPdfTextOptions): Promise<PdfText> {
  return new Promise<PdfText>((resolve, reject) => {
    const worker = new Worker(new URL('./pdf-text-worker.ts', import.meta.url), {
      workerData: {
        bytes: options.bytes,
        maxPages: options.maxPages,
        maxChars: options.maxChars,
        maxInflatedBytes: options.maxInflatedBytes ?? 64 * 1024 * 1024,
      },
      resourceLimits: { maxOldGenerationSizeMb: options.maxHeapMb ?? 256 },
    });
    let settled = false;
    const settle = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      void worker.terminate();
      outcome();
    };
    const unreadable = (message: string, cause?: unknown) =>
      new NexusError({ code: 'attachment_corrupt', message, cause });
    const timer = setTimeout(() => {
      settle(() =>
        reject(
          new NexusError({
            code: 'timeout',
            message: `Reading the PDF took longer than ${options.timeoutMs} ms.`,
          }),
        ),
      );
    }, options.timeoutMs);
    worker.on(
      'message',
      (result: {
        ok: boolean;
        text?: string;
        pages?: number;
        read?: number;
        message?: string;
        bomb?: boolean;
      }) => {
        settle(() =>
          result.bomb
            ? reject(new NexusError({ code: 'attachment_too_large', message: result.message ?? 'bomb' }))
            : result.ok
              ? resolve({ text: result.text ?? '', pages: result.pages ?? 0, pagesRead: result.read ?? 0 })
              : reject(unreadable(`The PDF could not be read: ${result.message ?? 'unknown error'}.`)),
        );
      },
    );
    worker.on('error', (error) => settle(() => reject(unreadable('The PDF could not be read.', error))));
    worker.on('exit', (code) => settle(() => reject(unreadable(`The PDF reader stopped (exit ${code}).`))));
  });
}
