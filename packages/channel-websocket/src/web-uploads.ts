import type { Attachment, FetchedAttachment } from '@nexus/protocol';

/** What an upload is, as the upload route found it from its bytes. */
export interface WebUpload {
  uploadId: string;
  /** The client that uploaded it; no other client may attach it. */
  clientId: string;
  /** From the sniffed bytes: `image`, `audio` or `document`. */
  kind: Extract<Attachment['kind'], 'image' | 'audio' | 'document'>;
  mimeType: string;
  name?: string;
  sizeBytes: number;
}

/**
 * The files web clients uploaded over HTTP (`POST /api/web/uploads`), as the web-socket channel
 * needs them: looked up when a `message` frame names them, read when core fetches the attachment.
 * The gateway implements it (the store lives in its data directory); the channel only reads.
 */
export interface WebUploads {
  /** The upload when it exists, has not expired and belongs to `clientId`; otherwise undefined. */
  describe(options: { uploadId: string; clientId: string }): Promise<WebUpload | undefined>;
  /**
   * The upload's bytes, never more than `maxBytes`. Fails with a NexusError:
   * `attachment_too_large`, or `attachment_unavailable` when it expired or never existed.
   */
  read(options: {
    uploadId: string;
    clientId: string;
    maxBytes: number;
    abortSignal?: AbortSignal;
  }): Promise<FetchedAttachment>;
}
