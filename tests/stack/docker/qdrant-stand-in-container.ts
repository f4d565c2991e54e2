// The Qdrant stand-in as the `qdrant` service of the stack test (compose.test.yml). The stand-in
// keeps collections in memory; real Qdrant keeps them on its volume, and the stack test restarts
// and kills containers, so this front keeps a journal of every accepted write on the volume
// (/qdrant/storage/journal.jsonl) and replays it on start. It also answers /readyz without the API
// key, as Qdrant does. Simplification: the journal grows with every write (never compacted).
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { startQdrantStandIn } from '@nexus/testkit/qdrant';

const JOURNAL = process.env.QDRANT_JOURNAL ?? '/qdrant/storage/journal.jsonl';
const apiKey = process.env.QDRANT__SERVICE__API_KEY || undefined;
const standIn = await startQdrantStandIn(apiKey ? { apiKey } : {});
const READ_ONLY_POSTS = /\/points(\/scroll|\/count|\/query(\/batch)?)?$|\/facet$/u;

interface Write {
  method: string;
  path: string;
  body: string;
}

function isWrite(method: string, path: string): boolean {
  if (method === 'PUT' || method === 'DELETE' || method === 'PATCH') return true;
  return method === 'POST' && !READ_ONLY_POSTS.test(path);
}

async function forward(write: Write): Promise<Response> {
  return fetch(`${standIn.url}${write.path}`, {
    method: write.method,
    headers: { 'content-type': 'application/json', ...(apiKey ? { 'api-key': apiKey } : {}) },
    ...(write.body ? { body: write.body } : {}),
  });
}

let replayed = 0;
if (existsSync(JOURNAL)) {
  for (const line of readFileSync(JOURNAL, 'utf8').split('\n')) {
    if (!line) continue;
    const response = await forward(JSON.parse(line) as Write);
    if (!response.ok) throw new Error(`journal replay failed: ${response.status} ${await response.text()}`);
    replayed += 1;
  }
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
  const method = request.method ?? 'GET';
  const path = request.url ?? '/';
  if (method === 'GET' && (path === '/readyz' || path === '/healthz' || path === '/livez')) {
    response.writeHead(200, { 'content-type': 'text/plain' }).end('all shards are ready');
    return;
  }
  const body = await readBody(request);
  const upstream = await fetch(`${standIn.url}${path}`, {
    method,
    headers: {
      'content-type': 'application/json',
      ...(typeof request.headers['api-key'] === 'string' ? { 'api-key': request.headers['api-key'] } : {}),
    },
    ...(body ? { body } : {}),
  });
  const text = await upstream.text();
  // Durable before acknowledged, like Qdrant's write-ahead log.
  if (upstream.ok && isWrite(method, path))
    appendFileSync(JOURNAL, `${JSON.stringify({ method, path, body })}\n`);
  response.writeHead(upstream.status, { 'content-type': 'application/json' }).end(text);
}

const server = createServer((request, response) => {
  handle(request, response).catch((error: unknown) => {
    response.writeHead(500, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ status: { error: String(error) }, time: 0 }));
  });
});
server.listen(6333, '0.0.0.0', () => {
  process.stdout.write(`qdrant stand-in on :6333 (${replayed} journal writes replayed)\n`);
});
const stop = () => server.close(() => standIn.close().then(() => process.exit(0)));
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
