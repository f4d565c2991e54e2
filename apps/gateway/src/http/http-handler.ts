import type { IncomingMessage, ServerResponse } from 'node:http';
import { requestPath } from '@nexus/limits-kit';
import type { StaticFile } from '../web/static-files.ts';
import { isTrustedObserver } from './is-trusted-observer.ts';

export interface Readiness {
  ready: boolean;
  checks: Record<string, { status: string; detail?: string }>;
}

export interface HttpHandlerOptions {
  staticFiles: Map<string, StaticFile>;
  readiness: () => Readiness;
  metrics: () => Promise<{ contentType: string; body: string }>;
  startedAt: number;
  now: () => number;
  /** `NEXUS_METRICS_TOKEN`: who may read `/metrics` and the detailed `/ready` (see isTrustedObserver). */
  metricsToken?: string;
  /** Which memory search is on and why (`/health` shows it); undefined until known. */
  memorySearch?: () => { search: string; embedder?: string; reason?: string } | undefined;
}

const SECURITY_HEADERS = {
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
};

const NOT_BUILT_PAGE = `<!doctype html><meta charset="utf-8"><title>Nexus</title>
<p>The web client is not built. Run <code>pnpm build</code> (or start with <code>pnpm start</code>, which builds it).</p>`;

/** Plain node:http routing: a handful of fixed routes does not need a framework. */
export function createHttpHandler(options: HttpHandlerOptions) {
  return (request: IncomingMessage, response: ServerResponse): void => {
    const path = requestPath(request);
    if (path === undefined) {
      send(response, 400, 'text/plain; charset=utf-8', 'bad request target\n');
      return;
    }
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      send(response, 405, 'text/plain; charset=utf-8', 'method not allowed\n', { allow: 'GET, HEAD' });
      return;
    }
    if (path === '/health') {
      const memory = options.memorySearch?.();
      const body = JSON.stringify({
        status: 'ok',
        uptimeS: Math.round((options.now() - options.startedAt) / 1000),
        ...(memory ? { memory } : {}),
      });
      send(response, 200, 'application/json', body);
      return;
    }
    if (path === '/ready') {
      const readiness = options.readiness();
      // The checks name channels, the owner's link and stores: only for a trusted observer.
      const body = isTrustedObserver(request, options.metricsToken) ? readiness : { ready: readiness.ready };
      send(response, readiness.ready ? 200 : 503, 'application/json', JSON.stringify(body));
      return;
    }
    if (path === '/metrics') {
      if (!isTrustedObserver(request, options.metricsToken)) {
        send(
          response,
          403,
          'text/plain; charset=utf-8',
          'metrics are served to this machine only (loopback address and Host, no proxy headers); set NEXUS_METRICS_TOKEN and send it as Authorization: Bearer <token>\n',
        );
        return;
      }
      options.metrics().then(
        (metrics) => send(response, 200, metrics.contentType, metrics.body),
        () => send(response, 500, 'text/plain; charset=utf-8', 'metrics unavailable\n'),
      );
      return;
    }
    const file = options.staticFiles.get(path === '/' ? '/index.html' : path);
    if (file) {
      send(response, 200, file.contentType, file.body, {
        'cache-control': file.immutable ? 'public, max-age=31536000, immutable' : 'no-cache',
      });
      return;
    }
    if (path === '/' || path === '/index.html') {
      send(response, 503, 'text/html; charset=utf-8', NOT_BUILT_PAGE);
      return;
    }
    send(response, 404, 'text/plain; charset=utf-8', 'not found\n');
  };
}

function send(
  response: ServerResponse,
  status: number,
  contentType: string,
  body: string | Buffer,
  headers: Record<string, string> = {},
): void {
  response.writeHead(status, {
    ...SECURITY_HEADERS,
    ...headers,
    'content-type': contentType,
    'content-length': Buffer.byteLength(body),
  });
  response.end(response.req.method === 'HEAD' ? undefined : body);
}
