import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type QdrantStandIn, startQdrantStandIn } from './qdrant-stand-in.ts';

interface StandInReply {
  result?: { points: Array<{ id: string | number; score?: number }>; count?: number } & Record<
    string,
    unknown
  >;
  status?: { error?: string } | string;
}

describe('Qdrant REST stand-in', () => {
  let standIn: QdrantStandIn;
  const call = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(standIn.url + path, {
      method,
      headers: { 'content-type': 'application/json' },
      body: body === undefined ? null : JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as StandInReply };
  };
  const id = '6f1c1f3e-93a5-4f0e-9a59-0b8e2f1c2a10';

  beforeAll(async () => {
    standIn = await startQdrantStandIn();
    await call('PUT', '/collections/c', {
      vectors: { dense: { size: 3, distance: 'Cosine' } },
      sparse_vectors: { bm25: { modifier: 'idf' } },
    });
    await call('PUT', '/collections/c/index', {
      field_name: 'userId',
      field_schema: { type: 'keyword', is_tenant: true },
    });
  });
  afterAll(async () => {
    await standIn.close();
  });

  it('refuses what Qdrant refuses', async () => {
    const cases: Array<[string, string, unknown, number, RegExp]> = [
      [
        'PUT',
        '/collections/c/points',
        { points: [{ id: 'memory-1', vector: {}, payload: {} }] },
        400,
        /not a valid point ID/,
      ],
      [
        'PUT',
        '/collections/c/points',
        { points: [{ id: -4, vector: {}, payload: {} }] },
        400,
        /not a valid point ID/,
      ],
      [
        'PUT',
        '/collections/c/points',
        { points: [{ id, vector: { dense: [1, 0] } }] },
        400,
        /expected dim: 3, got 2/,
      ],
      [
        'PUT',
        '/collections/c/points',
        { points: [{ id, vector: { other: [1, 0, 0] } }] },
        400,
        /Not existing vector name/,
      ],
      [
        'PUT',
        '/collections/c/points',
        { points: [{ id, vector: { bm25: { indices: [1, 1], values: [1, 1] } } }] },
        400,
        /unique/,
      ],
      ['PUT', '/collections/missing/points', { points: [] }, 404, /doesn't exist/],
      [
        'POST',
        '/collections/missing/points/query',
        { query: [1, 0, 0], using: 'dense' },
        404,
        /doesn't exist/,
      ],
      [
        'POST',
        '/collections/c/points/scroll',
        { filter: { must: [{ key: 'userId' }] } },
        400,
        /Format error/,
      ],
      [
        'POST',
        '/collections/c/points/scroll',
        { filter: { must: [{ key: 'userId', match: { value: { a: 1 } } }] } },
        400,
        /Format error/,
      ],
      ['POST', '/collections/c/points/count', { filter: { mustnt: [] } }, 400, /unknown field/],
      ['POST', '/collections/c/points/scroll', { order_by: { key: 'updatedAt' } }, 400, /range index/],
      ['POST', '/collections/c/facet', { key: 'sessionIds' }, 400, /Index required/],
      [
        'POST',
        '/collections/c/points/query',
        { query: [1, 0, 0, 0], using: 'dense' },
        400,
        /expected dim: 3, got 4/,
      ],
      ['PUT', '/collections/c', {}, 409, /already exists/],
      [
        'PUT',
        '/collections/c/index',
        { field_name: 'n', field_schema: { type: 'integer', is_tenant: true } },
        400,
        /is_tenant/,
      ],
    ];
    for (const [method, path, body, status, message] of cases) {
      const response = await call(method, path, body);
      expect({ path, status: response.status }).toEqual({ path, status });
      expect((response.body.status as { error?: string }).error).toMatch(message);
    }
    expect((await call('POST', '/collections/c/points/count', {})).body.result).toEqual({ count: 0 });
  });

  it('scores dense, sparse (with IDF) and fused queries, filtered by tenant', async () => {
    const other = '7f1c1f3e-93a5-4f0e-9a59-0b8e2f1c2a10';
    const third = 42;
    await call('PUT', '/collections/c/points', {
      points: [
        {
          id,
          vector: { dense: [1, 0, 0], bm25: { indices: [1, 2], values: [1, 1] } },
          payload: { userId: 'ada' },
        },
        {
          id: other,
          vector: { dense: [0, 1, 0], bm25: { indices: [2], values: [2] } },
          payload: { userId: 'ada' },
        },
        {
          id: third,
          vector: { dense: [1, 0, 0], bm25: { indices: [1], values: [1] } },
          payload: { userId: 'bob' },
        },
      ],
    });
    const filter = { must: [{ key: 'userId', match: { value: 'ada' } }] };
    const dense = await call('POST', '/collections/c/points/query', {
      query: [1, 0.1, 0],
      using: 'dense',
      filter,
    });
    expect(dense.body.result?.points.map((point) => point.id)).toEqual([id, other]);
    const sparse = await call('POST', '/collections/c/points/query', {
      query: { indices: [1], values: [1] },
      using: 'bm25',
      filter,
    });
    // Index 1 is in 2 of 3 points: idf = ln(1 + (3 − 2 + 0.5) / (2 + 0.5)).
    expect(sparse.body.result?.points).toEqual([{ id, version: 0, score: Math.log(1 + 1.5 / 2.5) }]);
    const fused = await call('POST', '/collections/c/points/query', {
      prefetch: [
        { query: { indices: [2], values: [1] }, using: 'bm25', limit: 5 },
        { query: [0, 1, 0], using: 'dense', limit: 5 },
      ],
      query: { rrf: { k: 10 } },
      filter,
    });
    expect(fused.body.result?.points[0]).toMatchObject({ id: other, score: 1 / 10 + 1 / 10 });
    expect(standIn.collections.get('c')?.indexes.get('userId')).toEqual({ type: 'keyword', isTenant: true });
  });
});
