import { NexusError } from '@nexus/protocol';

export interface TranscribeOptions {
  bytes: Uint8Array;
  mimeType: string;
  abortSignal?: AbortSignal;
}

/** Speech to text; the transcript becomes the turn's text. */
export interface Transcriber {
  transcribe(options: TranscribeOptions): Promise<string>;
}

export interface OpenAiTranscriberOptions {
  /** Up to and including the version segment, e.g. `http://whisper:8000/v1`. */
  baseUrl: string;
  model: string;
  apiKey?: string;
  fetch?: typeof fetch;
}

const EXTENSIONS: Record<string, string> = {
  'audio/ogg': 'ogg',
  'audio/mpeg': 'mp3',
  'audio/mp4': 'm4a',
  'audio/wav': 'wav',
  'audio/webm': 'webm',
};

/** OpenAI's `POST /audio/transcriptions` (multipart `file` + `model` → `{ text }`), which local Whisper servers copy. */
export function createOpenAiTranscriber(options: OpenAiTranscriberOptions): Transcriber {
  const doFetch = options.fetch ?? fetch;
  const url = `${options.baseUrl.replace(/\/+$/, '')}/audio/transcriptions`;
  return {
    async transcribe({ bytes, mimeType, abortSignal }) {
      const baseType = mimeType.split(';')[0]?.trim() ?? 'application/octet-stream';
      const form = new FormData();
      // The server guesses the decoder from the file name's extension, so give it a true one.
      form.append(
        'file',
        new Blob([new Uint8Array(bytes)], { type: baseType }),
        `voice.${EXTENSIONS[baseType] ?? 'bin'}`,
      );
      form.append('model', options.model);
      form.append('response_format', 'json');
      let response: Response;
      try {
        response = await doFetch(url, {
          method: 'POST',
          body: form,
          headers: options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {},
          ...(abortSignal ? { signal: abortSignal } : {}),
        });
      } catch (error) {
        throw new NexusError({
          code: 'attachment_unavailable',
          message: 'The transcription service could not be reached.',
          retryable: true,
          cause: error,
        });
      }
      if (!response.ok) {
        throw new NexusError({
          code: 'attachment_unavailable',
          message: `The transcription service answered ${response.status}.`,
          retryable: response.status >= 500 || response.status === 429,
        });
      }
      const body = (await response.json().catch(() => undefined)) as { text?: unknown } | undefined;
      if (typeof body?.text !== 'string') {
        throw new NexusError({
          code: 'attachment_unavailable',
          message: 'The transcription service sent no text.',
        });
      }
      return body.text.trim();
    },
  };
}
