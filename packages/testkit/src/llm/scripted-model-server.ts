import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { hashedEmbedding } from './hashed-embedding.ts';
import {
  type ChatCompletionRequest,
  echoResponse,
  type ScriptedResponder,
  type ScriptedResponse,
} from './scripted-response.ts';
import { answerTranscription, type RecordedTranscription } from './transcription-route.ts';
import { waitUnlessClosed } from './wait-unless-closed.ts';
import { writeChatCompletion } from './write-chat-completion.ts';

export interface ScriptedModelServerOptions {
  /** Time before the first byte of every answer. */
  latencyMs?: number;
  /** Time between SSE chunks; 0 (the default) writes a whole stream at once. */
  chunkDelayMs?: number;
  /** Length of the vectors `/v1/embeddings` returns when the request names no `dimensions`. */
  embeddingDimensions?: number;
  /**
   * False: `/v1/embeddings` answers 404 `model_not_found`, as a chat-only server (vLLM serving one
   * chat model, a provider without embeddings) does. Default true.
   */
  embeddings?: boolean;
  /** When set, requests with another bearer token get a 401 with an OpenAI-style error body. */
  apiKey?: string;
  /** Model ids listed by `GET /v1/models`. */
  models?: string[];
  /** Set false for long benchmarks, so the request log does not grow without bound. */
  recordRequests?: boolean;
  /** What `POST /v1/audio/transcriptions` answers; change it with `setTranscript`. */
  transcript?: string;
  /** Where to listen: 127.0.0.1 and a free port unless a container needs a fixed address. */
  host?: string;
  port?: number;
}

export interface RecordedModelRequest {
  path: string;
  body: unknown;
  headers: IncomingHttpHeaders;
  receivedAt: number;
  finishedAt?: number;
  /**
   * The client closed the connection before the answer was complete (an aborted request); not set
   * when the script itself dropped it (`dropConnection`).
   */
  abortedByClient?: boolean;
  /** Set for `/v1/audio/transcriptions`: the uploaded file as the server parsed it. */
  transcription?: RecordedTranscription;
}

/**
 * A local stand-in for an OpenAI-compatible provider, so the AI SDK's real HTTP path runs in
 * tests and benchmarks. Answers come from the queue, then the responder, then an echo.
 */
export interface ScriptedModelServer {
  /** `http://127.0.0.1:PORT/v1`, ready for `createOpenAICompatible({ baseURL })`. */
  baseUrl: string;
  requests: RecordedModelRequest[];
  chatRequests(): RecordedModelRequest[];
  enqueue(...responses: ScriptedResponse[]): void;
  setResponder(responder: ScriptedResponder): void;
  setLatency(ms: number): void;
  setTranscript(text: string): void;
  /**
   * A status (e.g. 503) that `/v1/embeddings` answers from now on, with an OpenAI-style error
   * body, as an overloaded or restarting provider does; undefined answers normally again.
   */
  setEmbeddingFailure(status: number | undefined): void;
  /** Requests to `/v1/audio/transcriptions`. */
  transcriptionRequests(): RecordedModelRequest[];
  reset(): void;
  close(): Promise<void>;
}

const CHAT_PATH = '/v1/chat/completions';
const TRANSCRIPTION_PATH = '/v1/audio/transcriptions';

export async function startScriptedModelServer(
  options: ScriptedModelServerOptions = {},
): Promise<ScriptedModelServer> {
  let latencyMs = options.latencyMs ?? 0;
  let embeddingFailure: number | undefined;
  const chunkDelayMs = options.chunkDelayMs ?? 0;
  const embeddingDimensions = options.embeddingDimensions ?? 64;
  const models = options.models ?? ['scripted-model'];
  const recordRequests = options.recordRequests ?? true;
  const queue: ScriptedResponse[] = [];
  let responder: ScriptedResponder | undefined;
  const requests: RecordedModelRequest[] = [];
  let counter = 0;
  let transcript = options.transcript ?? 'scripted transcript';

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const path = (request.url ?? '/').split('?')[0] ?? '/';
    const rawBytes = await readBody(request);
    const multipart = (request.headers['content-type'] ?? '').startsWith('multipart/');
    const rawBody = multipart ? '' : rawBytes.toString('utf8');
    let body: unknown;
    let badJson = false;
    if (rawBody.length > 0) {
      try {
        body = JSON.parse(rawBody);
      } catch {
        badJson = true;
      }
    }
    const record: RecordedModelRequest = { path, body, headers: request.headers, receivedAt: Date.now() };
    let droppedByScript = false;
    if (recordRequests) requests.push(record);
    response.once('close', () => {
      record.finishedAt = Date.now();
      if (!response.writableEnded && !droppedByScript) record.abortedByClient = true;
    });

    if (options.apiKey !== undefined && request.headers.authorization !== `Bearer ${options.apiKey}`) {
      return sendError(
        response,
        401,
        'Incorrect API key provided.',
        'invalid_request_error',
        'invalid_api_key',
      );
    }
    if (badJson)
      return sendError(response, 400, 'The request body is not valid JSON.', 'invalid_request_error');

    if (request.method === 'GET' && path === '/v1/models') {
      return sendJson(response, 200, {
        object: 'list',
        data: models.map((id) => ({ id, object: 'model', created: 0, owned_by: 'nexus-testkit' })),
      });
    }
    if (request.method === 'POST' && path === TRANSCRIPTION_PATH) {
      const outcome = await answerTranscription(rawBytes, request.headers, transcript);
      if (outcome.status === 400) return sendError(response, 400, outcome.message, 'invalid_request_error');
      record.transcription = outcome.recorded;
      if (latencyMs > 0 && !(await waitUnlessClosed(response, latencyMs))) return;
      return sendJson(response, 200, outcome.body);
    }
    if (request.method === 'POST' && path === '/v1/embeddings') {
      if (embeddingFailure !== undefined)
        return sendError(response, embeddingFailure, 'The server is overloaded.', 'server_error');
      if (options.embeddings === false) {
        const model = (body as { model?: unknown } | null)?.model;
        return sendError(
          response,
          404,
          `The model \`${String(model)}\` does not exist.`,
          'invalid_request_error',
          'model_not_found',
        );
      }
      if (latencyMs > 0 && !(await waitUnlessClosed(response, latencyMs))) return;
      return sendEmbeddings(response, body, embeddingDimensions);
    }
    if (request.method === 'POST' && path === CHAT_PATH) {
      const chatRequest = body as ChatCompletionRequest;
      if (chatRequest === null || typeof chatRequest !== 'object' || !Array.isArray(chatRequest.messages)) {
        return sendError(response, 400, 'messages must be an array.', 'invalid_request_error');
      }
      const scripted =
        queue.shift() ?? (responder ? await responder(chatRequest) : echoResponse(chatRequest));
      droppedByScript = scripted.dropConnection === true;
      const delayMs = scripted.delayMs ?? latencyMs;
      if (delayMs > 0 && !(await waitUnlessClosed(response, delayMs))) return;
      if (scripted.hang) return new Promise((resolve) => response.once('close', () => resolve()));
      if (scripted.status !== undefined && scripted.status >= 400) {
        if (scripted.dropConnection) return void response.destroy();
        if (scripted.errorBody !== undefined) return sendRaw(response, scripted.status, scripted.errorBody);
        const type = scripted.status >= 500 ? 'server_error' : 'invalid_request_error';
        return sendError(response, scripted.status, `Scripted error with status ${scripted.status}.`, type);
      }
      counter += 1;
      return writeChatCompletion({
        response,
        request: chatRequest,
        scripted,
        completionId: `chatcmpl-scripted-${counter}`,
        chunkDelayMs: scripted.chunkDelayMs ?? chunkDelayMs,
        nextToolCallId: () => {
          counter += 1;
          return `call_scripted_${counter}`;
        },
      });
    }
    return sendError(response, 404, `No route for ${request.method} ${path}.`, 'invalid_request_error');
  }

  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      if (response.headersSent) return void response.destroy();
      const message = error instanceof Error ? error.message : String(error);
      sendError(response, 500, `Scripted model server failed: ${message}`, 'server_error');
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const reachableHost =
    (options.host ?? '127.0.0.1') === '0.0.0.0' ? '127.0.0.1' : (options.host ?? '127.0.0.1');

  return {
    baseUrl: `http://${reachableHost}:${port}/v1`,
    requests,
    chatRequests: () => requests.filter((request) => request.path === CHAT_PATH),
    enqueue: (...responses) => {
      queue.push(...responses);
    },
    setResponder: (next) => {
      responder = next;
    },
    setLatency: (ms) => {
      latencyMs = ms;
    },
    setTranscript: (text) => {
      transcript = text;
    },
    setEmbeddingFailure: (status) => {
      embeddingFailure = status;
    },
    transcriptionRequests: () => requests.filter((request) => request.path === TRANSCRIPTION_PATH),
    reset: () => {
      queue.length = 0;
      requests.length = 0;
      responder = undefined;
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

function readBody(request: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks)));
    request.on('error', reject);
  });
}

function sendEmbeddings(response: ServerResponse, body: unknown, defaultDimensions: number): void {
  const { input, dimensions, model } = (body ?? {}) as {
    input?: unknown;
    dimensions?: unknown;
    model?: unknown;
  };
  const inputs = typeof input === 'string' ? [input] : input;
  if (!Array.isArray(inputs) || !inputs.every((item) => typeof item === 'string')) {
    sendError(response, 400, 'input must be a string or an array of strings.', 'invalid_request_error');
    return;
  }
  const size = typeof dimensions === 'number' && dimensions > 0 ? Math.floor(dimensions) : defaultDimensions;
  const promptTokens = inputs.reduce((sum, text) => sum + Math.ceil(text.length / 4), 0);
  sendJson(response, 200, {
    object: 'list',
    data: inputs.map((text, index) => ({
      object: 'embedding',
      index,
      embedding: hashedEmbedding(text, size),
    })),
    model: typeof model === 'string' ? model : 'scripted-embedding',
    usage: { prompt_tokens: promptTokens, total_tokens: promptTokens },
  });
}

function sendError(
  response: ServerResponse,
  status: number,
  message: string,
  type: string,
  code: string | null = null,
) {
  sendJson(response, status, { error: { message, type, param: null, code } });
}

function sendRaw(response: ServerResponse, status: number, body: unknown): void {
  if (typeof body === 'string') {
    response.writeHead(status, { 'content-type': 'text/plain; charset=utf-8' });
    response.end(body);
    return;
  }
  sendJson(response, status, body);
}

function sendJson(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify(body));
}
