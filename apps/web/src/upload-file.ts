/** What `POST /api/web/uploads` answers; `uploadId` goes into the message frame. */
export interface UploadedFile {
  uploadId: string;
  kind: 'image' | 'audio' | 'document';
  mimeType: string;
  sizeBytes: number;
  name?: string;
}

export interface UploadFileOptions {
  /** The gateway's web-socket URL; uploads go to the same origin. */
  url: string;
  /** Unset: the session cookie goes instead (see admin-api.ts). */
  token?: string;
  clientId: string;
  file: Blob;
  name?: string;
  /** Fraction sent so far, 0..1. */
  onProgress?: (fraction: number) => void;
  abortSignal?: AbortSignal;
}

/** Thrown when the upload is refused or fails; `message` is fit to show. */
export class UploadError extends Error {
  readonly status: number;

  constructor(status: number, message: string) {
    super(message);
    this.name = 'UploadError';
    this.status = status;
  }
}

/**
 * Sends one file as the raw body of `POST /api/web/uploads`. XMLHttpRequest rather than fetch:
 * it reports upload progress. Credentials as the admin API sends them (cookie, or a Bearer token).
 */
export function uploadFile(options: UploadFileOptions): Promise<UploadedFile> {
  const origin = new URL(options.url.replace(/^ws(s?):/, 'http$1:')).origin;
  return new Promise((resolve, reject) => {
    const request = new XMLHttpRequest();
    request.open('POST', `${origin}/api/web/uploads`);
    if (options.token !== undefined) request.setRequestHeader('authorization', `Bearer ${options.token}`);
    request.setRequestHeader('x-nexus-client-id', options.clientId);
    if (options.name) request.setRequestHeader('x-nexus-file-name', encodeURIComponent(options.name));
    request.setRequestHeader('content-type', options.file.type || 'application/octet-stream');
    request.responseType = 'json';
    request.upload.onprogress = (event) => {
      if (event.lengthComputable && event.total > 0) options.onProgress?.(event.loaded / event.total);
    };
    request.onload = () => {
      const body = request.response as (UploadedFile & { error?: { message?: string } }) | null;
      if (request.status === 201 && body?.uploadId) resolve(body);
      else
        reject(
          new UploadError(request.status, body?.error?.message ?? `The upload failed (${request.status}).`),
        );
    };
    request.onerror = () => reject(new UploadError(0, 'The upload failed: the gateway cannot be reached.'));
    request.onabort = () => reject(new UploadError(0, 'The upload was cancelled.'));
    options.abortSignal?.addEventListener('abort', () => request.abort(), { once: true });
    request.send(options.file);
  });
}
