import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { decodePathSegment, parseRequestTarget } from '@nexus/limits-kit';
import { type Logger, NexusError, silentLogger } from '@nexus/protocol';
import type { MemoryApi } from '../model/memory-api.ts';
import { MemoryInputError } from '../model/memory-errors.ts';
import { hostHeaderName, isLoopbackName } from './is-loopback-name.ts';

export interface MemoryHttpHandlerOptions {
  service: MemoryApi;
  /**
   * Required in the `X-API-Key` header of every route except `GET /health`. Undefined only for a
   * service its host keeps on loopback (`nexus memory serve` refuses any other address without one).
   */
  apiKey: string | undefined;
  /** Larger request bodies get a 413 before they are parsed (default 64 KiB). */
  maxBodyBytes?: number;
  logger?: Logger;
}

type Handler = (request: ParsedRequest) => Promise<[status: number, body: unknown]>;

interface ParsedRequest {
  body: Record<string, unknown>;
  query: Record<string, unknown>;
  parameter: string;
  abortSignal: AbortSignal;
}

const NUMERIC_QUERY_FIELDS = new Set(['limit', 'offset']);

/**
 * The memory service over HTTP, for running memory as its own process. Plain `node:http`: the
 * surface is ten routes, and every byte of input is checked before the service sees it.
 */
export function createMemoryRequestHandler(options: MemoryHttpHandlerOptions) {
  const { service } = options;
  const maxBodyBytes = options.maxBodyBytes ?? 65_536;
  const logger = options.logger ?? silentLogger;
  const expectedKey = options.apiKey === undefined ? undefined : digest(options.apiKey);
  const routes: Array<[method: string, pattern: RegExp, handler: Handler, authenticated: boolean]> = [
    ['POST', /^\/add$/u, async (r) => withStatus(await service.add(withSignal(r.body, r)), 'action'), true],
    [
      'POST',
      /^\/search$/u,
      async (r) => [200, { results: await service.search(withSignal(r.body, r)) }],
      true,
    ],
    ['POST', /^\/context$/u, async (r) => [200, await service.context(withSignal(r.body, r))], true],
    [
      'GET',
      /^\/memories$/u,
      async (r) => [200, { memories: await service.list(withSignal(r.query, r)) }],
      true,
    ],
    [
      'GET',
      /^\/standing-facts$/u,
      async (r) => [200, { memories: await service.standingFacts(withSignal(r.query, r)) }],
      true,
    ],
    [
      'GET',
      /^\/memories\/([^/]+)$/u,
      async (r) => {
        const memory = await service.get(withSignal({ ...r.query, id: r.parameter }, r));
        return memory ? [200, memory] : [404, errorBody('not_found', 'No such memory for this person.')];
      },
      true,
    ],
    [
      'PUT',
      /^\/memories\/([^/]+)$/u,
      async (r) => {
        const memory = await service.update(withSignal({ ...r.body, id: r.parameter }, r));
        return memory ? [200, { memory }] : [404, errorBody('not_found', 'No such memory for this person.')];
      },
      true,
    ],
    [
      'DELETE',
      /^\/memories\/([^/]+)$/u,
      async (r) => [200, await service.delete(withSignal({ ...r.query, id: r.parameter }, r))],
      true,
    ],
    [
      'GET',
      /^\/sessions\/([^/]+)\/memories$/u,
      async (r) => {
        // Over HTTP a session's memories are listed one person at a time: without userId the
        // service would return every person's memories bound to that session.
        if (typeof r.query.userId !== 'string' || r.query.userId === '') {
          throw new MemoryInputError({
            field: 'userId',
            message: 'Invalid userId: required (GET /sessions/:id/memories?userId=<person>).',
          });
        }
        return [
          200,
          { memories: await service.sessionMemories(withSignal({ ...r.query, sessionId: r.parameter }, r)) },
        ];
      },
      true,
    ],
    ['POST', /^\/reset$/u, async (r) => [200, await service.reset(withSignal(r.body, r))], true],
    ['GET', /^\/stats$/u, async (r) => [200, await service.stats(withSignal(r.query, r))], true],
    ['GET', /^\/health$/u, async (r) => [200, await service.health({ abortSignal: r.abortSignal })], false],
  ];

  return async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const controller = new AbortController();
    response.once('close', () => {
      if (!response.writableFinished) controller.abort(new Error('client went away'));
    });
    try {
      if (expectedKey === undefined && !isLoopbackName(hostHeaderName(request.headers.host) ?? '')) {
        return send(
          response,
          403,
          errorBody(
            'forbidden_host',
            'This memory service has no key, so it answers only requests addressed to 127.0.0.1, [::1] or localhost. Set NEXUS_MEMORY_API_KEY to reach it by another name.',
          ),
        );
      }
      const url = parseRequestTarget(request.url);
      if (!url) return send(response, 400, errorBody('bad_request', 'The request target is not a path.'));
      const matches = routes.filter(([, pattern]) => pattern.test(url.pathname));
      if (matches.length === 0)
        return send(response, 404, errorBody('not_found', `No route ${url.pathname}.`));
      const route = matches.find(([method]) => method === request.method);
      if (!route) {
        response.setHeader('allow', matches.map(([method]) => method).join(', '));
        return send(response, 405, errorBody('method_not_allowed', `${request.method} is not allowed here.`));
      }
      const [, pattern, handler, authenticated] = route;
      if (authenticated && expectedKey && !keyMatches(request.headers['x-api-key'], expectedKey)) {
        return send(response, 401, errorBody('unauthorized', 'Missing or wrong X-API-Key header.'));
      }
      const body =
        request.method === 'POST' || request.method === 'PUT'
          ? await readJsonBody(request, maxBodyBytes)
          : {};
      const parameter = decodePathSegment(pattern.exec(url.pathname)?.[1] ?? '');
      if (parameter === undefined)
        return send(response, 400, errorBody('bad_request', 'The path is not valid percent-encoding.'));
      const [status, result] = await handler({
        body,
        query: queryObject(url.searchParams),
        parameter,
        abortSignal: controller.signal,
      });
      send(response, status, result);
    } catch (error) {
      if (error instanceof HttpError)
        return send(response, error.status, errorBody(error.code, error.message));
      if (error instanceof MemoryInputError) {
        return send(response, 400, errorBody('bad_request', error.message, error.field));
      }
      if (error instanceof NexusError && error.code === 'memory_unavailable') {
        logger.warn({ err: error }, 'memory http: store unavailable');
        return send(response, 503, errorBody(error.code, error.message));
      }
      logger.error({ err: error }, 'memory http: request failed');
      send(response, 500, errorBody('internal', 'The memory service failed; see its log.'));
    }
  };
}

export interface MemoryHttpServer {
  url: string;
  close(): Promise<void>;
}

/** Timeouts and the connection cap of the memory service's HTTP server. */
export interface MemoryHttpLimits {
  /** Longest wait for the request line and headers (default 10 s). */
  headersTimeoutMs?: number;
  /** Longest wait for a whole request, body included (default 30 s). */
  requestTimeoutMs?: number;
  /** Idle time before a keep-alive connection closes (default 5 s). */
  keepAliveTimeoutMs?: number;
  /** Connections held at once; more are dropped (default 1024). */
  maxConnections?: number;
}

/**
 * Starts the HTTP API on `host:port` (port 0 = ephemeral); resolves once listening. Without an
 * `apiKey` only a loopback `host` is accepted.
 */
export async function startMemoryHttpServer(
  options: MemoryHttpHandlerOptions & { port?: number; host?: string; limits?: MemoryHttpLimits },
): Promise<MemoryHttpServer> {
  const handler = createMemoryRequestHandler(options);
  const logger = options.logger ?? silentLogger;
  const headersTimeout = options.limits?.headersTimeoutMs ?? 10_000;
  // Node checks the timeouts on a timer (30 s by default); every second keeps a trickling
  // client from holding a connection far past them.
  const server = createServer(
    {
      headersTimeout,
      requestTimeout: Math.max(headersTimeout, options.limits?.requestTimeoutMs ?? 30_000),
      keepAliveTimeout: options.limits?.keepAliveTimeoutMs ?? 5000,
      connectionsCheckingInterval: Math.max(100, Math.min(1000, Math.floor(headersTimeout / 4))),
    },
    (request, response) => {
      // The handler answers every failure itself; this catch is for a bug in that answering.
      handler(request, response).catch((error: unknown) => {
        logger.error({ err: error }, 'memory http: handler failed');
        response.destroy();
      });
    },
  );
  server.maxConnections = options.limits?.maxConnections ?? 1024;
  const host = options.host ?? '127.0.0.1';
  if (options.apiKey === undefined && !isLoopbackName(host)) {
    throw new NexusError({
      code: 'invalid_config',
      message: `A memory service on ${host} is reachable from other machines: give it an apiKey, or listen on 127.0.0.1.`,
    });
  }
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host}:${port}`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}

class HttpError extends Error {
  readonly status: number;
  readonly code: string;
  constructor(status: number, code: string, message: string) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

async function readJsonBody(
  request: IncomingMessage,
  maxBodyBytes: number,
): Promise<Record<string, unknown>> {
  const type = request.headers['content-type'] ?? '';
  if (!/^application\/json\b/iu.test(type)) {
    throw new HttpError(415, 'unsupported_media_type', 'Send the body as application/json.');
  }
  const declared = Number(request.headers['content-length'] ?? 0);
  const tooLarge = () =>
    new HttpError(413, 'payload_too_large', `The request body exceeds ${maxBodyBytes} bytes.`);
  if (declared > maxBodyBytes) {
    request.resume();
    throw tooLarge();
  }
  // Event listeners, not for-await: leaving a for-await early destroys the socket, and the
  // client would never see the 413.
  const text = await new Promise<string>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBodyBytes) {
        request.off('data', onData);
        request.resume();
        reject(tooLarge());
        return;
      }
      chunks.push(chunk);
    };
    request.on('data', onData);
    request.once('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.once('error', reject);
  });
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new MemoryInputError({ field: 'body', message: 'Invalid body: not valid JSON.' });
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new MemoryInputError({ field: 'body', message: 'Invalid body: expected a JSON object.' });
  }
  return parsed as Record<string, unknown>;
}

function queryObject(parameters: URLSearchParams): Record<string, unknown> {
  const query: Record<string, unknown> = {};
  for (const [key, value] of parameters) {
    // A non-numeric limit stays a string, so validation names it instead of guessing.
    query[key] = NUMERIC_QUERY_FIELDS.has(key) && /^-?\d+$/u.test(value) ? Number(value) : value;
  }
  return query;
}

function withSignal<T>(input: Record<string, unknown>, request: ParsedRequest): T {
  const { abortSignal: _ignored, ...rest } = input;
  return { ...rest, abortSignal: request.abortSignal } as T;
}

function withStatus<T extends { action: string }>(result: T, _field: 'action'): [number, T] {
  return [result.action === 'inserted' ? 201 : 200, result];
}

function errorBody(code: string, message: string, field?: string) {
  return { error: field === undefined ? { code, message } : { code, message, field } };
}

function send(response: ServerResponse, status: number, body: unknown): void {
  if (response.headersSent || response.destroyed) return;
  const text = JSON.stringify(body);
  response.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
  });
  response.end(text);
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}

function keyMatches(header: string | string[] | undefined, expected: Buffer): boolean {
  if (typeof header !== 'string' || header.length === 0) return false;
  return timingSafeEqual(digest(header), expected);
}
