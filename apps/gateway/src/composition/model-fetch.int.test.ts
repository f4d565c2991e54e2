import { spawn } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { gzipSync } from 'node:zlib';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { freePort } from '@nexus/testkit';
import { startScriptedModelServer } from '@nexus/testkit/llm';
import { streamText } from 'ai';
import { afterEach, describe, expect, it } from 'vitest';
import { createModelFetch } from './model-fetch.ts';

const servers: http.Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

async function serve(handler: http.RequestListener): Promise<{ url: string; sockets: Set<Socket> }> {
  const server = http.createServer(handler);
  const sockets = new Set<Socket>();
  server.on('connection', (socket) => sockets.add(socket));
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, sockets };
}

function bodyOf(request: http.IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    let text = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => {
      text += chunk;
    });
    request.on('end', () => resolve(text));
  });
}

/** A script timing 40 sequential requests through `createModelFetch`, as JSON on stdout. */
function sequentialClient(url: string): string {
  const modelFetchFile = new URL('./model-fetch.ts', import.meta.url).href;
  // Counts the zero-delay timers set while it sends 41 requests one after another: undici 7.29
  // set one per request on a kept-alive socket (40 here), 7.30 none. A count, not a time: the
  // same on a busy machine as on an idle one.
  return `
let zeroDelayTimers = 0;
const setTimeoutOfNode = globalThis.setTimeout;
globalThis.setTimeout = (callback, delay, ...rest) => {
  if (!delay) zeroDelayTimers += 1;
  return setTimeoutOfNode(callback, delay, ...rest);
};
const { createModelFetch } = await import(${JSON.stringify(modelFetchFile)});
const modelFetch = createModelFetch();
for (let request = 0; request < 41; request += 1) {
  await (await modelFetch(${JSON.stringify(`${url}/v1/embeddings`)}, { method: 'POST', body: '{}' })).json();
  await new Promise((resolve) => setImmediate(resolve));
}
console.log(JSON.stringify({ zeroDelayTimers }));
`;
}

/**
 * undici hands over a response's last bytes a moment before it counts the connection as free
 * again; a request sent in that very continuation opens another one. Any real gap reuses it.
 */
function connectionFreed(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

describe('the model fetch', () => {
  it('carries a streamed AI SDK turn against the scripted model server', async () => {
    const model = await startScriptedModelServer();
    try {
      model.setResponder(() => ({ chunks: ['Hello ', 'there ', 'friend'] }));
      const provider = createOpenAICompatible({
        name: 'scripted',
        baseURL: model.baseUrl,
        includeUsage: true,
        fetch: createModelFetch(),
      });
      for (const turn of [1, 2]) {
        const result = streamText({ model: provider('scripted'), prompt: `turn ${turn}` });
        expect(await result.text).toBe('Hello there friend');
      }
      expect(model.chatRequests()).toHaveLength(2);
    } finally {
      await model.close();
    }
  });

  it('sends the body and headers, keeps the connection alive, and hands back status and headers', async () => {
    const seen: Array<{ method: string; headers: http.IncomingHttpHeaders; body: string }> = [];
    const { url, sockets } = await serve(async (request, response) => {
      seen.push({ method: request.method ?? '', headers: request.headers, body: await bodyOf(request) });
      response.writeHead(201, 'Made', {
        'x-answer': '42',
        'content-type': 'application/json',
        'set-cookie': ['a=1', 'b=2'],
      });
      response.end('{"ok":true}');
    });
    const modelFetch = createModelFetch();
    for (const body of ['{"a":"é"}', '{"b":2}']) {
      const response = await modelFetch(`${url}/v1/thing`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', authorization: 'Bearer k' },
        body,
      });
      expect(response.status).toBe(201);
      expect(response.statusText).toBe('Made');
      expect(response.ok).toBe(true);
      expect(response.headers.get('x-answer')).toBe('42');
      // A repeated header keeps every value, in order.
      expect(response.headers.getSetCookie()).toEqual(['a=1', 'b=2']);
      expect(await response.json()).toEqual({ ok: true });
      await connectionFreed();
    }
    expect(seen.map((request) => request.body)).toEqual(['{"a":"é"}', '{"b":2}']);
    expect(seen[0]?.method).toBe('POST');
    expect(seen[0]?.headers['content-type']).toBe('application/json');
    expect(seen[0]?.headers.authorization).toBe('Bearer k');
    expect(seen[0]?.headers['content-length']).toBe(String(Buffer.byteLength('{"a":"é"}')));
    // One connection for both requests.
    expect(sockets.size).toBe(1);
  });

  it('hands back every header of a response whose headers do not repeat', async () => {
    const { url } = await serve((_request, response) => {
      response.writeHead(200, { 'x-answer': '42', 'content-type': 'text/event-stream', 'x-empty': '' });
      response.end('data: 1\n\n');
    });
    const response = await createModelFetch()(`${url}/v1/chat`, { method: 'POST', body: '{}' });
    expect(response.headers.get('x-answer')).toBe('42');
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    expect(response.headers.get('x-empty')).toBe('');
    expect(response.headers.getSetCookie()).toEqual([]);
    expect(await response.text()).toBe('data: 1\n\n');
  });

  it('sends each request to its own URL, however many endpoints it has parsed before', async () => {
    const { url } = await serve((request, response) => {
      response.writeHead(200, { 'content-type': 'text/plain' });
      response.end(request.url);
    });
    const modelFetch = createModelFetch();
    const paths = [
      ...Array.from({ length: 20 }, (_, index) => `/v1/e${index}?q=${index}`),
      '/v1/e0?q=0',
      '/v1/e19?q=19',
    ];
    const answered: string[] = [];
    for (const path of paths) answered.push(await (await modelFetch(`${url}${path}`)).text());
    expect(answered).toEqual(paths);
  });

  it('sends a request on a kept-alive connection without waiting for a timer', async () => {
    // undici 7.28–7.29 checked an idle kept-alive socket behind a setTimeout(0) before reusing
    // it: Node's timer floor, about 1.3 ms on every request of a warm turn (the memory query's
    // embedding, then the model), paid in full by a process whose event loop waits for the
    // model server. The client runs in its own process, so only its own timers are counted.
    const { url } = await serve((_request, response) => {
      response.writeHead(200, { 'content-length': 11 });
      response.end('{"ok":true}');
    });
    const client = spawn(process.execPath, ['--input-type=module', '-e', sequentialClient(url)], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let printed = '';
    client.stdout.on('data', (data) => {
      printed += String(data);
    });
    await new Promise((resolve) => client.once('exit', resolve));
    const { zeroDelayTimers } = JSON.parse(printed) as { zeroDelayTimers: number };
    expect(zeroDelayTimers).toBeLessThan(5);
  });

  it('fails a request that reaches nobody as fetch does: TypeError "fetch failed", the socket error as cause', async () => {
    const port = await freePort();
    const failure = await createModelFetch()(`http://127.0.0.1:${port}/v1/chat/completions`, {
      method: 'POST',
      body: '{}',
    }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(TypeError);
    expect((failure as TypeError).message).toBe('fetch failed');
    expect(((failure as TypeError).cause as NodeJS.ErrnoException).code).toBe('ECONNREFUSED');
  });

  it('rejects with the signal’s reason when aborted before the response or while the body is read', async () => {
    let release: (() => void) | undefined;
    const { url } = await serve((request, response) => {
      if (request.url === '/slow') return; // never answers
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write('data: first\n\n');
      release = () => response.end();
    });
    const modelFetch = createModelFetch();
    const before = new AbortController();
    const pending = modelFetch(`${url}/slow`, { method: 'POST', body: '{}', signal: before.signal });
    const reason = new DOMException('took too long', 'TimeoutError');
    setTimeout(() => before.abort(reason), 20);
    await expect(pending).rejects.toBe(reason);

    const during = new AbortController();
    const response = await modelFetch(`${url}/stream`, { method: 'POST', body: '{}', signal: during.signal });
    const reader = response.body!.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toBe('data: first\n\n');
    const stopped = new Error('shutting down');
    during.abort(stopped);
    await expect(reader.read()).rejects.toBe(stopped);
    release?.();
  });

  it('lets a caller drop the body of an answer it does not want, and serves the next request', async () => {
    const { url } = await serve((request, response) => {
      response.writeHead(request.url === '/missing' ? 404 : 200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ at: request.url, padding: 'x'.repeat(64 * 1024) }));
    });
    const modelFetch = createModelFetch();
    const missing = await modelFetch(`${url}/missing`, { method: 'POST', body: '{}' });
    expect(missing.status).toBe(404);
    // As the embedding-model probe does with a 404: the body is never read. A chunk still on its
    // way must not throw from inside the stream (vitest fails the run on an uncaught error).
    await missing.body?.cancel();
    await new Promise((resolve) => setTimeout(resolve, 50));
    const next = await modelFetch(`${url}/found`, { method: 'POST', body: '{}' });
    expect(((await next.json()) as { at: string }).at).toBe('/found');
  });

  it('decodes a gzip body and follows a redirect', async () => {
    const { url } = await serve((request, response) => {
      if (request.url === '/old') {
        response.writeHead(307, { location: '/new' });
        response.end();
        return;
      }
      response.writeHead(200, { 'content-encoding': 'gzip', 'content-type': 'application/json' });
      response.end(
        gzipSync(JSON.stringify({ at: request.url, encodings: request.headers['accept-encoding'] })),
      );
    });
    const modelFetch = createModelFetch();
    expect(await (await modelFetch(`${url}/new`, { method: 'POST', body: '{}' })).json()).toEqual({
      at: '/new',
      encodings: 'gzip, deflate',
    });
    const redirected = await modelFetch(`${url}/old`, { method: 'POST', body: '{}' });
    expect(((await redirected.json()) as { at: string }).at).toBe('/new');
  });

  it('sends a request again on a fresh connection when the server closed the kept-alive one', async () => {
    let requests = 0;
    const { url, sockets } = await serve(async (request, response) => {
      requests += 1;
      await bodyOf(request);
      // The second request arrives on the kept-alive socket just as the server drops it.
      if (requests === 2) {
        request.socket.destroy();
        return;
      }
      response.end(`answer ${requests}`);
    });
    const modelFetch = createModelFetch();
    expect(await (await modelFetch(url, { method: 'POST', body: 'one' })).text()).toBe('answer 1');
    await connectionFreed();
    expect(await (await modelFetch(url, { method: 'POST', body: 'two' })).text()).toBe('answer 3');
    expect(sockets.size).toBe(2);
  });

  it('goes through HTTP_PROXY when Node is told to use the environment’s proxy, as fetch does', async () => {
    const proxied: string[] = [];
    const proxy = await serve((request, response) => {
      proxied.push(`${request.method} ${request.url}`);
      response.end('via proxy');
    });
    const saved = { ...process.env };
    Object.assign(process.env, { NODE_USE_ENV_PROXY: '1', HTTP_PROXY: proxy.url, NO_PROXY: '' });
    try {
      const modelFetch = createModelFetch();
      const response = await modelFetch('http://model.invalid/v1/chat/completions', {
        method: 'POST',
        body: '{}',
      });
      expect(await response.text()).toBe('via proxy');
      expect(proxied).toEqual(['POST http://model.invalid/v1/chat/completions']);
    } finally {
      for (const name of ['NODE_USE_ENV_PROXY', 'HTTP_PROXY', 'NO_PROXY']) {
        if (saved[name] === undefined) delete process.env[name];
        else process.env[name] = saved[name];
      }
    }
  });
});
