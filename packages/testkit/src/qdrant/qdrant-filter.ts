/** The subset of Qdrant's filter language the stand-in understands, validated like the server. */
export interface QdrantFilter {
  must?: QdrantCondition[];
  should?: QdrantCondition[];
  must_not?: QdrantCondition[];
}

export type QdrantCondition =
  | QdrantFilter
  | {
      key: string;
      match:
        | { value: string | number | boolean }
        | { any: Array<string | number> }
        | { except: Array<string | number> };
    }
  | { key: string; range: { gt?: number; gte?: number; lt?: number; lte?: number } }
  | { has_id: Array<string | number> }
  | { is_empty: { key: string } };

export class QdrantInputError extends Error {}

const FILTER_KEYS = new Set(['must', 'should', 'must_not', 'min_should']);
const RANGE_KEYS = new Set(['gt', 'gte', 'lt', 'lte']);

/** Throws a `QdrantInputError` (→ 400 "Format error") for anything real Qdrant would not parse. */
export function validateFilter(filter: unknown, path = 'filter'): QdrantFilter | undefined {
  if (filter === undefined || filter === null) return undefined;
  if (typeof filter !== 'object' || Array.isArray(filter)) throw formatError(path, 'expected an object');
  for (const [key, value] of Object.entries(filter)) {
    if (!FILTER_KEYS.has(key)) throw formatError(path, `unknown field \`${key}\``);
    if (key === 'min_should') continue;
    const conditions = value === null ? [] : Array.isArray(value) ? value : [value];
    conditions.forEach((condition, index) => {
      validateCondition(condition, `${path}.${key}[${index}]`);
    });
  }
  return filter as QdrantFilter;
}

function validateCondition(condition: unknown, path: string): void {
  if (condition === null || typeof condition !== 'object' || Array.isArray(condition)) {
    throw formatError(path, 'expected a condition object');
  }
  const record = condition as Record<string, unknown>;
  if ('must' in record || 'should' in record || 'must_not' in record) {
    validateFilter(record, path);
    return;
  }
  if ('has_id' in record) {
    if (!Array.isArray(record.has_id)) throw formatError(path, '`has_id` must be an array');
    for (const id of record.has_id) parsePointId(id);
    return;
  }
  if ('is_empty' in record || 'is_null' in record) return;
  if (typeof record.key !== 'string' || record.key === '') throw formatError(path, 'missing field `key`');
  if ('match' in record) {
    const match = record.match as Record<string, unknown> | null;
    if (!match || typeof match !== 'object') throw formatError(path, '`match` must be an object');
    const valid =
      ('value' in match && ['string', 'number', 'boolean'].includes(typeof match.value)) ||
      ('any' in match && Array.isArray(match.any)) ||
      ('except' in match && Array.isArray(match.except)) ||
      ('text' in match && typeof match.text === 'string');
    if (!valid) throw formatError(path, 'data did not match any variant of untagged enum Match');
    return;
  }
  if ('range' in record) {
    const range = record.range as Record<string, unknown> | null;
    if (!range || typeof range !== 'object') throw formatError(path, '`range` must be an object');
    for (const [key, value] of Object.entries(range)) {
      if (!RANGE_KEYS.has(key) || (value !== null && typeof value !== 'number')) {
        throw formatError(path, `invalid range bound \`${key}\``);
      }
    }
    return;
  }
  throw formatError(path, 'data did not match any variant of untagged enum Condition');
}

export function matchesFilter(
  filter: QdrantFilter | undefined,
  point: { id: string | number; payload: Record<string, unknown> },
): boolean {
  if (!filter) return true;
  const all = (conditions: QdrantCondition[] | undefined) =>
    (conditions ?? []).every((c) => matchesCondition(c, point));
  const should = filter.should ?? [];
  return (
    all(filter.must) &&
    (filter.must_not ?? []).every((condition) => !matchesCondition(condition, point)) &&
    (should.length === 0 || should.some((condition) => matchesCondition(condition, point)))
  );
}

function matchesCondition(
  condition: QdrantCondition,
  point: { id: string | number; payload: Record<string, unknown> },
): boolean {
  if ('must' in condition || 'should' in condition || 'must_not' in condition) {
    return matchesFilter(condition as QdrantFilter, point);
  }
  if ('has_id' in condition) return condition.has_id.some((id) => String(id) === String(point.id));
  if ('is_empty' in condition) {
    const value = point.payload[condition.is_empty.key];
    return value === undefined || value === null || (Array.isArray(value) && value.length === 0);
  }
  const field = condition as { key: string; match?: unknown; range?: Record<string, number | undefined> };
  const raw = point.payload[field.key];
  const values = Array.isArray(raw) ? raw : raw === undefined ? [] : [raw];
  if (field.match !== undefined) {
    const match = field.match as Record<string, unknown>;
    if ('value' in match) return values.some((value) => value === match.value);
    if ('any' in match) return values.some((value) => (match.any as unknown[]).includes(value));
    if ('except' in match) return values.every((value) => !(match.except as unknown[]).includes(value));
    return false;
  }
  const range = field.range ?? {};
  return values.some(
    (value) =>
      typeof value === 'number' &&
      (range.gt === undefined || value > range.gt) &&
      (range.gte === undefined || value >= range.gte) &&
      (range.lt === undefined || value < range.lt) &&
      (range.lte === undefined || value <= range.lte),
  );
}

const UUID = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/iu;

/** Qdrant point ids are unsigned 64-bit integers or UUIDs; anything else is refused. */
export function parsePointId(id: unknown): string | number {
  if (typeof id === 'number' && Number.isSafeInteger(id) && id >= 0) return id;
  if (typeof id === 'string' && UUID.test(id)) {
    const hex = id.replace(/-/gu, '').toLowerCase();
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  }
  throw new QdrantInputError(
    `Format error in JSON body: value ${JSON.stringify(id)} is not a valid point ID, valid values are either an unsigned integer or a UUID`,
  );
}

function formatError(path: string, message: string): QdrantInputError {
  return new QdrantInputError(`Format error in JSON body: ${path}: ${message}`);
}
