import type { AttachmentRefusals } from './attachment-refusals.ts';
import type { MediaStore } from './media-store.ts';
import type { Transcriber } from './transcriber.ts';

/** How core treats attachments; the gateway fills it from settings (see docs/media.md). */
export interface MediaSettings {
  /** Largest attachment downloaded; bigger ones get a clear reply. */
  maxBytes: number;
  /** Wall-clock allowance per attachment: download, sniff, transcribe or extract. */
  timeBudgetMs: number;
  /** The configured model accepts image parts. */
  vision: boolean;
  /** Unset: voice notes get an honest "cannot listen" reply. */
  transcriber?: Transcriber;
  /** Characters of document text passed to the model (a token budget at ~4 characters a token). */
  documentMaxChars: number;
  /** Pages of a PDF read at most; the rest is left out, and the model is told so. */
  pdfMaxPages: number;
  /** Unset: media is not kept on disk. Only attachments core used are kept (docs/media.md). */
  store?: MediaStore;
  /** Unset: no allowance for messages whose attachments are refused. */
  refusals?: AttachmentRefusals;
}

export const DEFAULT_MEDIA_SETTINGS: MediaSettings = {
  maxBytes: 20 * 1024 * 1024,
  timeBudgetMs: 30_000,
  vision: false,
  documentMaxChars: 24_000,
  pdfMaxPages: 50,
};
