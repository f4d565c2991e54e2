import { readFile } from 'node:fs/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type QdrantStandIn, startQdrantStandIn } from './qdrant-stand-in.ts';
import { QDRANT_DEPLOYED_VERSION } from './qdrant-status-errors.ts';

// Rules of Qdrant 1.19's OpenAPI (its redoc openapi.json for v1.19.x) and server code the stand-in
// keeps: update_mode, Cosine normalisation, alias actions one by one, 404/409 status codes.

let standIn: QdrantStandIn;
const call = async (method: string, path: string, body?: unknown) => {
  const response = await fetch(standIn.url + path, {
    method,
    headers: { 'content-type': 'application/json' },
    body: body === undefined ? null : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as { version?: string; result?: unknown } };
};
const ID = '6f1c1f3e-93a5-4f0e-9a59-0b8e2f1c2a10';

beforeEach(async () => {
  standIn = await startQdrantStandIn();
  await call('PUT', '/collections/c', { vectors: { dense: { size: 3, distance: 'Cosine' } } });
});
afterEach(async () => {
  await standIn.close();
});

describe('Qdrant stand-in, deployed-version rules', () => {
  it('reports the version docker-compose.yml deploys', async () => {
    const compose = await readFile(new URL('../../../../docker-compose.yml', import.meta.url), 'utf8');
    expect(/image: qdrant\/qdrant:v(\S+)/u.exec(compose)?.[1]).toBe(QDRANT_DEPLOYED_VERSION);
    expect((await call('GET', '/')).body.version).toBe(QDRANT_DEPLOYED_VERSION);
  });

  it('keeps an existing point under update_mode insert_only, skips a new one under update_only', async () => {
    const point = (city: string, id = ID) => ({ id, vector: { dense: [1, 0, 0] }, payload: { city } });
    await call('PUT', '/collections/c/points', { points: [point('Berlin')] });
    const insertOnly = await call('PUT', '/collections/c/points', {
      points: [point('Paris')],
      update_mode: 'insert_only',
    });
    expect(insertOnly.status).toBe(200);
    const other = '7f1c1f3e-93a5-4f0e-9a59-0b8e2f1c2a11';
    await call('PUT', '/collections/c/points', {
      points: [point('Rome', other)],
      update_mode: 'update_only',
    });
    const read = await call('POST', '/collections/c/points', { ids: [ID, other], with_payload: true });
    expect(read.body.result).toEqual([expect.objectContaining({ id: ID, payload: { city: 'Berlin' } })]);
    const wrong = await call('PUT', '/collections/c/points', { points: [point('x')], update_mode: 'insert' });
    expect(wrong.status).toBe(400);
  });

  it('stores Cosine vectors normalised and scores them as a dot product', async () => {
    await call('PUT', '/collections/c/points', { points: [{ id: ID, vector: { dense: [3, 4, 0] } }] });
    const read = await call('POST', '/collections/c/points', { ids: [ID], with_vector: true });
    const [x, y, z] = (read.body.result as Array<{ vector: { dense: number[] } }>)[0]?.vector.dense ?? [];
    expect([x, y, z]).toEqual([expect.closeTo(0.6, 6), expect.closeTo(0.8, 6), 0]);
    const hit = await call('POST', '/collections/c/points/query', { query: [30, 40, 0], using: 'dense' });
    expect((hit.body.result as { points: Array<{ score: number }> }).points[0]?.score).toBeCloseTo(1, 6);
  });

  it('applies alias actions one by one and answers 404 / 409 as the server does', async () => {
    await call('PUT', '/collections/d', { vectors: { dense: { size: 3, distance: 'Dot' } } });
    const failing = await call('POST', '/collections/aliases', {
      actions: [
        { create_alias: { alias_name: 'first', collection_name: 'c' } },
        { create_alias: { alias_name: 'second', collection_name: 'missing' } },
        { create_alias: { alias_name: 'third', collection_name: 'c' } },
      ],
    });
    expect(failing.status).toBe(404);
    // The action before the failure stays done; the one after never ran.
    expect(((await call('GET', '/aliases')).body.result as { aliases: unknown[] }).aliases).toEqual([
      { alias_name: 'first', collection_name: 'c' },
    ]);
    const clash = await call('POST', '/collections/aliases', {
      actions: [{ create_alias: { alias_name: 'd', collection_name: 'c' } }],
    });
    expect(clash.status).toBe(409);
    const rename = await call('POST', '/collections/aliases', {
      actions: [{ rename_alias: { old_alias_name: 'nope', new_alias_name: 'x' } }],
    });
    expect(rename.status).toBe(404);
    // Deleting an alias that does not exist is not an error; re-creating one re-points it.
    const repoint = await call('POST', '/collections/aliases', {
      actions: [
        { delete_alias: { alias_name: 'nope' } },
        { create_alias: { alias_name: 'first', collection_name: 'd' } },
      ],
    });
    expect(repoint.status).toBe(200);
    expect(((await call('GET', '/aliases')).body.result as { aliases: unknown[] }).aliases).toEqual([
      { alias_name: 'first', collection_name: 'd' },
    ]);
    expect((await call('GET', '/collections/missing')).status).toBe(404);
    expect((await call('PUT', '/collections/c', { vectors: {} })).status).toBe(409);
  });
});
