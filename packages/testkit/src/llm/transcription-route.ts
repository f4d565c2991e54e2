import type { IncomingHttpHeaders } from 'node:http';

/** What the scripted server saw of one `/audio/transcriptions` upload. */
export interface RecordedTranscription {
  model: string | undefined;
  fileName: string | undefined;
  fileType: string | undefined;
  fileBytes: number;
  /** The first bytes as hex, so a test can check the real file arrived (e.g. `4f676753` for Ogg). */
  fileHead: string;
}

export type TranscriptionOutcome =
  | { status: 200; body: { text: string }; recorded: RecordedTranscription }
  | { status: 400; message: string };

/**
 * Parses OpenAI's multipart shape (`file` + `model`) with the platform's own multipart parser
 * (undici's `Request.formData`) and answers `{ text }` with the scripted transcript.
 */
export async function answerTranscription(
  rawBody: Buffer,
  headers: IncomingHttpHeaders,
  transcript: string,
): Promise<TranscriptionOutcome> {
  const contentType = headers['content-type'] ?? '';
  if (!contentType.startsWith('multipart/form-data')) {
    return { status: 400, message: 'Expected multipart/form-data with a file and a model.' };
  }
  let form: FormData;
  try {
    form = await new Request('http://scripted.invalid/', {
      method: 'POST',
      headers: { 'content-type': contentType },
      body: new Uint8Array(rawBody),
    }).formData();
  } catch {
    return { status: 400, message: 'The multipart body could not be parsed.' };
  }
  const file = form.get('file');
  const model = form.get('model');
  if (!(file instanceof Blob) || typeof model !== 'string') {
    return { status: 400, message: 'Both file and model are required.' };
  }
  const bytes = new Uint8Array(await file.arrayBuffer());
  return {
    status: 200,
    body: { text: transcript },
    recorded: {
      model,
      fileName: file instanceof File ? file.name : undefined,
      fileType: file.type || undefined,
      fileBytes: bytes.byteLength,
      fileHead: Buffer.from(bytes.subarray(0, 8)).toString('hex'),
    },
  };
}
