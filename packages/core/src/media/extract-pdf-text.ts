import { fork } from 'node:child_process';
import { settleWithin } from '@nexus/limits-kit';
import { NexusError } from '@nexus/protocol';
import { PDF_READER_SCRIPT, pdfReaderLaunch } from './pdf-reader-launch.ts';
import { takePdfReaderSlot } from './pdf-reader-slots.ts';
import type { PdfJob, PdfJobResult } from './pdf-text-child.ts';
import { watchChildMemory } from './watch-child-memory.ts';

export interface PdfText {
  text: string;
  /** Pages in the document. */
  pages: number;
  /** Pages read (the rest was over the cap). */
  pagesRead: number;
}

export interface ExtractPdfTextOptions {
  bytes: Uint8Array;
  /** The person the file came from: one reader slot per person at a time (see pdf-reader-slots.ts). */
  personId: string;
  maxPages: number;
  maxChars: number;
  timeoutMs: number;
  /** All streams of the file together may inflate to this much; more is a decompression bomb. */
  maxInflatedBytes?: number;
  /** V8 heap of the reading process. */
  maxHeapMb?: number;
  /**
   * Resident memory of the reading process (heap, decoded ArrayBuffers, code): past this it is
   * killed and the file refused. A fresh Node with pdf.js loaded is about 60 MB.
   */
  maxMemoryMb?: number;
}

export const DEFAULT_PDF_MEMORY_MB = 320;

/**
 * PDF text through pdf.js (via `unpdf`) in a child process with a heap limit, a resident-memory
 * watchdog and a deadline, started without privileges (`pdfReaderLaunch`: empty environment, no
 * access to the data directory). A crafted file (a decompression bomb behind a `/Filter` chain,
 * huge objects) grows that process, never the gateway's: over budget it is killed and the person
 * is told the file expands to more than can be opened safely. At most MAX_PDF_READERS run at
 * once, one per person; waiting for one counts against the deadline.
 */
export async function extractPdfText(options: ExtractPdfTextOptions): Promise<PdfText> {
  const started = Date.now();
  const release = await takePdfReaderSlot(options.personId, options.timeoutMs);
  try {
    const left = Math.max(1, options.timeoutMs - (Date.now() - started));
    return await readInChild({ ...options, timeoutMs: left }, options.timeoutMs);
  } finally {
    release();
  }
}

/** How long a SIGKILLed reader may take to be gone before the answer stops waiting for it. */
const EXIT_WAIT_MS = 5_000;

function timeoutError(timeoutMs: number): NexusError {
  return new NexusError({ code: 'timeout', message: `Reading the PDF took longer than ${timeoutMs} ms.` });
}

function readInChild(options: ExtractPdfTextOptions, budgetMs: number): Promise<PdfText> {
  const maxMemoryMb = options.maxMemoryMb ?? DEFAULT_PDF_MEMORY_MB;
  return new Promise<PdfText>((resolve, reject) => {
    const launch = pdfReaderLaunch(PDF_READER_SCRIPT, options.maxHeapMb ?? 192);
    const child = fork(PDF_READER_SCRIPT, [], {
      execArgv: launch.execArgv,
      env: launch.env,
      serialization: 'advanced',
      stdio: ['ignore', 'ignore', 'ignore', 'ipc'],
    });
    const exited = new Promise<void>((done) => child.once('exit', () => done()));
    let settled = false;
    // The answer (and so the reader slot) waits until the killed reader has exited: a bomb's
    // reader may hold hundreds of MB until then, and the next reader must not overlap it.
    const settle = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      watchdog.stop();
      const running = child.exitCode === null && child.signalCode === null && child.pid !== undefined;
      if (!running) return outcome();
      child.kill('SIGKILL');
      void settleWithin([() => exited], EXIT_WAIT_MS).then(outcome);
    };
    const unreadable = (message: string, cause?: unknown) =>
      new NexusError({ code: 'attachment_corrupt', message, cause });
    const tooBig = () =>
      new NexusError({
        code: 'attachment_unsupported',
        message: `it expands to more than the ${maxMemoryMb} MB I can safely open.`,
      });
    const watchdog = watchChildMemory({
      pid: child.pid ?? 0,
      maxResidentBytes: maxMemoryMb * 1024 * 1024,
      onOverBudget: () => settle(() => reject(tooBig())),
    });
    const timer = setTimeout(() => settle(() => reject(timeoutError(budgetMs))), options.timeoutMs);
    child.on('message', (result: PdfJobResult) => {
      settle(() => {
        if (result.ok) resolve({ text: result.text, pages: result.pages, pagesRead: result.read });
        else if (result.bomb) reject(tooBig());
        else reject(unreadable(`The PDF could not be read: ${result.message}.`));
      });
    });
    child.on('error', (error) => settle(() => reject(unreadable('The PDF reader could not start.', error))));
    child.on('exit', (code, signal) =>
      // Out of heap ends the process with a V8 fatal error: that is the memory cap too.
      settle(() =>
        reject(
          code === 134 || signal === 'SIGABRT'
            ? tooBig()
            : unreadable(`The PDF reader stopped (exit ${code ?? signal}).`),
        ),
      ),
    );
    const job: PdfJob = {
      bytes: options.bytes,
      maxPages: options.maxPages,
      maxChars: options.maxChars,
      maxInflatedBytes: options.maxInflatedBytes ?? 64 * 1024 * 1024,
    };
    child.send(job);
  });
}
