import {
  matchesFilter,
  parsePointId,
  type QdrantFilter,
  QdrantInputError,
  validateFilter,
} from './qdrant-filter.ts';

export interface SparseVector {
  indices: number[];
  values: number[];
}

export interface StoredPoint {
  id: string | number;
  vectors: Record<string, number[] | SparseVector>;
  payload: Record<string, unknown>;
}

interface DenseConfig {
  size: number;
  distance: string;
}

const DISTANCES = new Set(['Cosine', 'Dot', 'Euclid', 'Manhattan']);
const UPDATE_MODES = new Set(['upsert', 'insert_only', 'update_only']);

/**
 * Qdrant stores Cosine vectors normalised to length 1 (and returns them so) and scores Cosine
 * as a dot product of normalised vectors; a zero vector is kept as it is.
 */
export function normaliseVector(vector: number[]): number[] {
  const length = Math.sqrt(vector.reduce((sum, value) => sum + value * value, 0));
  return length < Number.EPSILON ? vector : vector.map((value) => value / length);
}
const INDEX_TYPES = new Set(['keyword', 'integer', 'float', 'bool', 'uuid', 'datetime', 'text']);

/** One collection of the stand-in: its vector config, payload indexes and points. */
export class StandInCollection {
  readonly dense = new Map<string, DenseConfig>();
  readonly sparse = new Map<string, { modifier: string }>();
  readonly indexes = new Map<string, { type: string; isTenant: boolean }>();
  readonly points = new Map<string, StoredPoint>();
  readonly metadata: Record<string, unknown>;
  /** Points per tenant value, for each `is_tenant` index: how Qdrant keeps a tenant's data together. */
  readonly #tenants = new Map<string, Map<unknown, Set<string>>>();
  /** Per sparse vector: how many points have it, and per index how many contain that index. */
  readonly #documentFrequency = new Map<string, { total: number; counts: Map<number, number> }>();

  constructor(config: Record<string, unknown>) {
    const vectors = config.vectors as Record<string, unknown> | undefined;
    if (vectors && typeof vectors === 'object') {
      if ('size' in vectors) throw new QdrantInputError('The stand-in only supports named vectors.');
      for (const [name, value] of Object.entries(vectors)) {
        const dense = value as Partial<DenseConfig> | null;
        if (
          !dense ||
          !Number.isInteger(dense.size) ||
          (dense.size ?? 0) < 1 ||
          !DISTANCES.has(dense.distance ?? '')
        ) {
          throw new QdrantInputError(
            `Format error in JSON body: vectors.${name}: needs a positive size and a distance`,
          );
        }
        this.dense.set(name, { size: dense.size as number, distance: dense.distance as string });
      }
    }
    const sparse = (config.sparse_vectors ?? {}) as Record<string, { modifier?: string } | null>;
    for (const [name, value] of Object.entries(sparse)) {
      const modifier = value?.modifier ?? 'none';
      if (modifier !== 'idf' && modifier !== 'none') {
        throw new QdrantInputError(
          `Format error in JSON body: sparse_vectors.${name}.modifier: unknown variant`,
        );
      }
      this.sparse.set(name, { modifier });
    }
    this.metadata = (config.metadata as Record<string, unknown> | undefined) ?? {};
  }

  info() {
    return {
      status: 'green',
      optimizer_status: 'ok',
      points_count: this.points.size,
      indexed_vectors_count: 0,
      segments_count: 1,
      config: {
        params: {
          vectors: Object.fromEntries(this.dense),
          sparse_vectors: Object.fromEntries(this.sparse),
          shard_number: 1,
          replication_factor: 1,
        },
        metadata: this.metadata,
      },
      payload_schema: Object.fromEntries(
        [...this.indexes].map(([field, index]) => [
          field,
          {
            data_type: index.type,
            params: { type: index.type, is_tenant: index.isTenant },
            points: this.points.size,
          },
        ]),
      ),
    };
  }

  createIndex(body: Record<string, unknown>): void {
    const field = body.field_name;
    if (typeof field !== 'string' || field === '')
      throw new QdrantInputError('Format error in JSON body: missing field `field_name`');
    const schema = body.field_schema;
    const type = typeof schema === 'string' ? schema : (schema as { type?: string } | null)?.type;
    if (!type || !INDEX_TYPES.has(type)) {
      throw new QdrantInputError('Format error in JSON body: field_schema: data did not match any variant');
    }
    const isTenant = typeof schema === 'object' && (schema as { is_tenant?: boolean }).is_tenant === true;
    if (isTenant && type !== 'keyword' && type !== 'uuid') {
      throw new QdrantInputError('Wrong input: is_tenant is only supported for keyword and uuid indexes');
    }
    this.indexes.set(field, { type, isTenant });
    if (isTenant && !this.#tenants.has(field)) {
      this.#tenants.set(field, new Map());
      for (const point of this.points.values()) this.#indexTenant(field, point, 1);
    }
  }

  /**
   * `PUT /points` with its `update_mode` (Qdrant 1.17+, OpenAPI `UpdateMode`): `upsert` (the
   * default) writes every point, `insert_only` leaves an existing id untouched, `update_only`
   * skips ids that do not exist. Either way the call succeeds; nothing says which were skipped.
   */
  upsert(points: unknown, mode: unknown = 'upsert'): void {
    if (!Array.isArray(points)) {
      throw new QdrantInputError('Format error in JSON body: expected `points` or a batch');
    }
    if (mode !== null && !UPDATE_MODES.has(String(mode)))
      throw new QdrantInputError(
        `Format error in JSON body: update_mode: unknown variant \`${String(mode)}\`, expected one of \`upsert\`, \`insert_only\`, \`update_only\``,
      );
    const parsed = points.map((point: Record<string, unknown>) => this.#parsePoint(point));
    for (const point of parsed) {
      const key = String(point.id);
      const previous = this.points.get(key);
      if (previous && mode === 'insert_only') continue;
      if (!previous && mode === 'update_only') continue;
      if (previous) this.#account(previous, -1);
      this.points.set(key, point);
      this.#account(point, 1);
    }
  }

  deletePoint(point: StoredPoint): void {
    if (this.points.delete(String(point.id))) this.#account(point, -1);
  }

  setPayload(point: StoredPoint, payload: Record<string, unknown>): void {
    this.#account(point, -1);
    Object.assign(point.payload, structuredClone(payload));
    this.#account(point, 1);
  }

  /** `PUT /points/payload`: the point's whole payload is replaced (keys the new one lacks are gone). */
  overwritePayload(point: StoredPoint, payload: Record<string, unknown>): void {
    this.#account(point, -1);
    point.payload = structuredClone(payload);
    this.#account(point, 1);
  }

  /** IDF statistics of a sparse vector over the whole collection. */
  documentFrequency(name: string): { total: number; counts: ReadonlyMap<number, number> } {
    return this.#documentFrequency.get(name) ?? { total: 0, counts: new Map() };
  }

  #account(point: StoredPoint, delta: 1 | -1): void {
    for (const field of this.#tenants.keys()) this.#indexTenant(field, point, delta);
    for (const [name, vector] of Object.entries(point.vectors)) {
      if (Array.isArray(vector)) continue;
      let statistics = this.#documentFrequency.get(name);
      if (!statistics) {
        statistics = { total: 0, counts: new Map() };
        this.#documentFrequency.set(name, statistics);
      }
      statistics.total += delta;
      for (const index of vector.indices)
        statistics.counts.set(index, (statistics.counts.get(index) ?? 0) + delta);
    }
  }

  #indexTenant(field: string, point: StoredPoint, delta: 1 | -1): void {
    const byValue = this.#tenants.get(field);
    const value = point.payload[field];
    if (!byValue || value === undefined) return;
    let members = byValue.get(value);
    if (!members) {
      members = new Set();
      byValue.set(value, members);
    }
    if (delta > 0) members.add(String(point.id));
    else members.delete(String(point.id));
  }

  #parsePoint(point: Record<string, unknown>): StoredPoint {
    const id = parsePointId(point.id);
    const vectors = (point.vector ?? {}) as Record<string, unknown>;
    if (Array.isArray(vectors)) throw new QdrantInputError('Wrong input: Not existing vector name error: ');
    const parsed: StoredPoint['vectors'] = {};
    for (const [name, value] of Object.entries(vectors)) {
      const vector = this.validateVector(name, value);
      parsed[name] =
        Array.isArray(vector) && this.dense.get(name)?.distance === 'Cosine'
          ? normaliseVector(vector)
          : vector;
    }
    const payload = point.payload ?? {};
    if (typeof payload !== 'object' || Array.isArray(payload))
      throw new QdrantInputError('Format error in JSON body: payload');
    return { id, vectors: parsed, payload: structuredClone(payload as Record<string, unknown>) };
  }

  /** Checks a vector against the named config exactly as the server would. */
  validateVector(name: string, value: unknown): number[] | SparseVector {
    const dense = this.dense.get(name);
    if (dense) {
      if (!Array.isArray(value) || value.some((item) => typeof item !== 'number')) {
        throw new QdrantInputError(
          `Wrong input: Conversion between sparse and regular vectors failed for ${name}`,
        );
      }
      if (value.length !== dense.size) {
        throw new QdrantInputError(
          `Wrong input: Vector dimension error: expected dim: ${dense.size}, got ${value.length}`,
        );
      }
      return value as number[];
    }
    if (this.sparse.has(name)) {
      const sparse = value as Partial<SparseVector> | null;
      if (!sparse || !Array.isArray(sparse.indices) || !Array.isArray(sparse.values)) {
        throw new QdrantInputError(
          `Wrong input: Conversion between sparse and regular vectors failed for ${name}`,
        );
      }
      if (sparse.indices.length !== sparse.values.length) {
        throw new QdrantInputError(
          'Validation error in JSON body: indices and values must have the same length',
        );
      }
      if (new Set(sparse.indices).size !== sparse.indices.length) {
        throw new QdrantInputError('Validation error in JSON body: indices must be unique');
      }
      if (sparse.indices.some((index) => !Number.isInteger(index) || index < 0 || index > 0xffffffff)) {
        throw new QdrantInputError('Format error in JSON body: sparse indices must be u32');
      }
      return { indices: sparse.indices, values: sparse.values };
    }
    throw new QdrantInputError(`Wrong input: Not existing vector name error: ${name}`);
  }

  select(filter: unknown): StoredPoint[] {
    const parsed: QdrantFilter | undefined = validateFilter(filter);
    return this.#candidates(parsed).filter((point) => matchesFilter(parsed, point));
  }

  /** With a `must` match on a tenant field, only that tenant's points are read, as in Qdrant. */
  #candidates(filter: QdrantFilter | undefined): StoredPoint[] {
    for (const condition of filter?.must ?? []) {
      const field = condition as { key?: string; match?: { value?: unknown } };
      const byValue = field.key === undefined ? undefined : this.#tenants.get(field.key);
      if (byValue && field.match && 'value' in field.match) {
        const members = byValue.get(field.match.value) ?? new Set<string>();
        return [...members].flatMap((key) => this.points.get(key) ?? []);
      }
    }
    return [...this.points.values()];
  }

  selectPoints(selector: Record<string, unknown>): StoredPoint[] {
    if (Array.isArray(selector.points)) {
      return selector.points.flatMap((id) => {
        const point = this.points.get(String(parsePointId(id)));
        return point ? [point] : [];
      });
    }
    if (selector.filter !== undefined) return this.select(selector.filter);
    throw new QdrantInputError('Format error in JSON body: expected `points` or `filter`');
  }
}
