import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { StandInAliases } from './qdrant-aliases.ts';
import { StandInCollection } from './qdrant-collection.ts';
import { parsePointId, QdrantInputError } from './qdrant-filter.ts';
import { runQuery, type ScoredPoint } from './qdrant-query.ts';
import { QDRANT_DEPLOYED_VERSION, QdrantConflictError, QdrantNotFoundError } from './qdrant-status-errors.ts';

export interface QdrantStandIn {
  /** e.g. `http://127.0.0.1:PORT`, ready for `new QdrantClient({ url })`. */
  url: string;
  /** Live view of the collections, for assertions. */
  collections: ReadonlyMap<string, StandInCollection>;
  /** Every request as `METHOD /path`, for asserting what the adapter called. */
  requests: string[];
  close(): Promise<void>;
}

const NotFound = QdrantNotFoundError;
const Conflict = QdrantConflictError;

const COLLECTION_NAME = /^[A-Za-z0-9_.-]{1,255}$/u;

/**
 * A REST stand-in for the subset of Qdrant a memory store uses: collections, payload indexes
 * (keyword with `is_tenant`, integer), points with named dense and sparse (IDF) vectors,
 * retrieve/scroll/count/delete/set and overwrite payload, the Query API (prefetch + RRF fusion, batches) and
 * facets. It refuses what the server refuses: ids that are neither UUID nor unsigned integer,
 * wrong vector sizes, unknown vector names or collections, malformed filters, facets and
 * order_by without the index they need. It reports the deployed server version
 * (`QDRANT_DEPLOYED_VERSION`), follows that version's OpenAPI for `update_mode`, stores Cosine
 * vectors normalised, applies alias actions one by one, and answers 400 / 404 / 409 where the
 * server does. Simplified: one shard, no `update_filter`, no payload-index type checks on writes.
 */
export async function startQdrantStandIn(
  options: {
    apiKey?: string;
    /** The version `GET /` reports; default the deployed one. Only the report changes. */
    version?: string;
    host?: string;
    port?: number;
  } = {},
): Promise<QdrantStandIn> {
  const collections = new Map<string, StandInCollection>();
  const requests: string[] = [];
  const aliases = new StandInAliases();

  const collectionOf = (name: string) => {
    const collection = collections.get(aliases.resolve(name));
    if (!collection) throw new NotFound(`Not found: Collection \`${name}\` doesn't exist!`);
    return collection;
  };

  async function route(method: string, path: string, body: Record<string, unknown>): Promise<unknown> {
    if (method === 'GET' && path === '/')
      return { title: 'qdrant - vector search engine', version: options.version ?? QDRANT_DEPLOYED_VERSION };
    if (method === 'GET' && path === '/aliases') return { aliases: aliases.list() };
    if (method === 'POST' && path === '/collections/aliases') {
      aliases.apply(body, (name) => collections.has(name));
      return true;
    }
    const match = /^\/collections\/([^/]+)(\/.*)?$/u.exec(path);
    if (method === 'GET' && path === '/collections') {
      return { collections: [...collections.keys()].map((name) => ({ name })) };
    }
    if (!match) throw new NotFound(`Not found: ${path}`);
    const name = decodeURIComponent(match[1] ?? '');
    const rest = match[2] ?? '';
    if (!COLLECTION_NAME.test(name))
      throw new QdrantInputError(`Validation error in path parameters: collection name "${name}"`);
    const key = `${method} ${rest}`;
    if (key === 'GET /exists') return { exists: collections.has(aliases.resolve(name)) };
    if (key === 'PUT ') {
      if (collections.has(name) || aliases.has(name))
        throw new Conflict(`Wrong input: Collection \`${name}\` already exists!`);
      collections.set(name, new StandInCollection(body));
      return true;
    }
    if (key === 'DELETE ') {
      aliases.forget(name);
      return collections.delete(name);
    }
    const collection = collectionOf(name);
    switch (key) {
      case 'GET ':
        return collection.info();
      case 'PUT /index':
        collection.createIndex(body);
        return completed();
      case 'PUT /points':
        if (body.update_filter !== undefined && body.update_filter !== null)
          throw new QdrantInputError('The stand-in does not implement update_filter (Qdrant 1.16+ does).');
        collection.upsert(body.points ?? batchToPoints(body.batch), body.update_mode ?? 'upsert');
        return completed();
      case 'POST /points':
        return retrieve(collection, body);
      case 'POST /points/delete':
        for (const point of collection.selectPoints(body)) collection.deletePoint(point);
        return completed();
      case 'POST /points/payload':
        for (const point of collection.selectPoints(body))
          Object.assign(point.payload, structuredClone(body.payload ?? {}));
        return completed();
      case 'PUT /points/payload':
        // Overwrite: the point's whole payload becomes the body's (keys it lacks are dropped).
        for (const point of collection.selectPoints(body))
          collection.overwritePayload(point, (body.payload ?? {}) as Record<string, unknown>);
        return completed();
      case 'POST /points/scroll':
        return scroll(collection, body);
      case 'POST /points/count':
        return { count: collection.select(body.filter).length };
      case 'POST /points/query':
        return { points: runQuery(collection, body).map((hit) => formatPoint(hit, body)) };
      case 'POST /points/query/batch': {
        if (!Array.isArray(body.searches))
          throw new QdrantInputError('Format error in JSON body: missing field `searches`');
        return body.searches.map((search: Record<string, unknown>) => ({
          points: runQuery(collection, search).map((hit) => formatPoint(hit, search)),
        }));
      }
      case 'POST /facet':
        return facet(collection, body);
      default:
        throw new NotFound(`Not found: ${method} ${path}`);
    }
  }

  const server = createServer(async (request: IncomingMessage, response: ServerResponse) => {
    const url = new URL(request.url ?? '/', 'http://qdrant.local');
    requests.push(`${request.method} ${url.pathname}`);
    const started = performance.now();
    try {
      if (options.apiKey && request.headers['api-key'] !== options.apiKey) {
        return reply(response, 401, { status: { error: 'Unauthorized: invalid API key' }, time: 0 });
      }
      const text = await readBody(request);
      let body: Record<string, unknown> = {};
      if (text) {
        try {
          body = JSON.parse(text) as Record<string, unknown>;
        } catch (error) {
          throw new QdrantInputError(`Format error in JSON body: ${(error as Error).message}`);
        }
      }
      const result = await route(request.method ?? 'GET', url.pathname, body);
      const time = (performance.now() - started) / 1000;
      reply(response, 200, url.pathname === '/' ? result : { result, status: 'ok', time });
    } catch (error) {
      const status =
        error instanceof NotFound
          ? 404
          : error instanceof Conflict
            ? 409
            : error instanceof QdrantInputError
              ? 400
              : 500;
      reply(response, status, { status: { error: (error as Error).message }, time: 0 });
    }
  });
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, host, () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${port}`,
    collections,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function retrieve(collection: StandInCollection, body: Record<string, unknown>) {
  if (!Array.isArray(body.ids)) throw new QdrantInputError('Format error in JSON body: missing field `ids`');
  return body.ids.flatMap((id) => {
    const point = collection.points.get(String(parsePointId(id)));
    return point ? [formatPoint({ point, score: 0 }, body, false)] : [];
  });
}

function scroll(collection: StandInCollection, body: Record<string, unknown>) {
  const limit = (body.limit as number | undefined) ?? 10;
  let points = collection.select(body.filter);
  const orderBy = body.order_by;
  if (orderBy !== undefined && orderBy !== null) {
    const { key, direction } =
      typeof orderBy === 'string'
        ? { key: orderBy, direction: 'asc' }
        : (orderBy as { key: string; direction?: string });
    const index = collection.indexes.get(key);
    if (!index || !['integer', 'float', 'datetime'].includes(index.type)) {
      throw new QdrantInputError(
        `Bad request: No range index for \`order_by\` key: \`${key}\`. Please create one to use \`order_by\`.`,
      );
    }
    if (body.offset !== undefined && body.offset !== null)
      throw new QdrantInputError('Bad request: Cannot use an `offset` with `order_by`');
    const sign = direction === 'desc' ? -1 : 1;
    points.sort((left, right) => sign * (Number(left.payload[key]) - Number(right.payload[key])));
    return {
      points: points.slice(0, limit).map((point) => formatPoint({ point, score: 0 }, body, false)),
      next_page_offset: null,
    };
  }
  points = points.sort((left, right) => String(left.id).localeCompare(String(right.id)));
  if (body.offset !== undefined && body.offset !== null) {
    const from = String(parsePointId(body.offset));
    points = points.filter((point) => String(point.id) >= from);
  }
  const page = points.slice(0, limit);
  const next = points[limit];
  return {
    points: page.map((point) => formatPoint({ point, score: 0 }, body, false)),
    next_page_offset: next ? next.id : null,
  };
}

function facet(collection: StandInCollection, body: Record<string, unknown>) {
  const key = body.key;
  if (typeof key !== 'string') throw new QdrantInputError('Format error in JSON body: missing field `key`');
  if (collection.indexes.get(key)?.type !== 'keyword') {
    throw new QdrantInputError(
      `Bad request: Index required but not found for "${key}" of one of the following types: [keyword]`,
    );
  }
  const counts = new Map<string, number>();
  for (const point of collection.select(body.filter)) {
    const raw = point.payload[key];
    const values = new Set(Array.isArray(raw) ? raw : raw === undefined ? [] : [raw]);
    for (const value of values) counts.set(String(value), (counts.get(String(value)) ?? 0) + 1);
  }
  const limit = (body.limit as number | undefined) ?? 10;
  const hits = [...counts]
    .map(([value, count]) => ({ value, count }))
    .sort((left, right) => right.count - left.count || left.value.localeCompare(right.value))
    .slice(0, limit);
  return { hits };
}

function formatPoint(hit: ScoredPoint, request: Record<string, unknown>, withScore = true) {
  const { point } = hit;
  const formatted: Record<string, unknown> = { id: point.id, version: 0 };
  if (withScore) formatted.score = hit.score;
  const withPayload = request.with_payload ?? !withScore;
  if (withPayload === true) formatted.payload = point.payload;
  else if (Array.isArray(withPayload)) formatted.payload = pick(point.payload, withPayload as string[]);
  const withVector = request.with_vector;
  if (withVector === true) formatted.vector = point.vectors;
  else if (Array.isArray(withVector)) formatted.vector = pick(point.vectors, withVector as string[]);
  return formatted;
}

function pick<T>(record: Record<string, T>, keys: string[]): Record<string, T> {
  return Object.fromEntries(Object.entries(record).filter(([key]) => keys.includes(key)));
}

function batchToPoints(batch: unknown): unknown[] {
  const { ids, vectors, payloads } = (batch ?? {}) as {
    ids?: unknown[];
    vectors?: Record<string, unknown[]>;
    payloads?: unknown[];
  };
  if (!Array.isArray(ids))
    throw new QdrantInputError('Format error in JSON body: expected `points` or `batch`');
  return ids.map((id, index) => ({
    id,
    vector: Object.fromEntries(Object.entries(vectors ?? {}).map(([name, values]) => [name, values[index]])),
    payload: payloads?.[index] ?? {},
  }));
}

function completed() {
  return { operation_id: 0, status: 'completed' };
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function reply(response: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
  });
  response.end(text);
}
