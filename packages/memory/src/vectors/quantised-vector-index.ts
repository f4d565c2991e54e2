import { Int8DotProducts } from './int8-dot-products.ts';

/** Scope codes in the index; 0 marks a removed slot. */
const SCOPE_CODES: Record<string, number> = { user: 1, global: 2, session: 3 };
/**
 * Added to every error bound: the exact scores are sqlite-vec's float32 L2 distances, which may
 * differ from the true dot product by ~1e-5 at 384 dimensions (rounding over 384 terms).
 */
const ROUNDING_SLACK = 2e-4;

/**
 * One person's unit vectors as int8 codes (a scale and the quantisation error kept per vector),
 * for a coarse pass that is provably complete: `candidates(query, k)` returns every vector that
 * can be among the exact top k, because each approximate score comes with a bound on its error.
 * Let x ≈ s·c (int8 codes c, error e = ‖x − s·c‖) and the query q ≈ t·Q (int16, error f). Then
 * |q·x − s·t·(Q·c)| ≤ f + (1 + f)·e. With L the k-th largest lower bound, a vector whose upper
 * bound is below L has k vectors certainly better than it, so it is left out; the rest are
 * re-scored exactly by the caller. Ties and near-ties at the cut are all kept, so the exact
 * order decides them as it would have without the index.
 */
export class QuantisedVectorIndex {
  readonly #dots: Int8DotProducts;
  readonly #slots = new Map<number, number>();
  #rowids = new Float64Array(0);
  #scopes = new Uint8Array(0);
  #scales = new Float64Array(0);
  #errors = new Float64Array(0);
  #count = 0;
  #removed = 0;

  constructor(dimensions: number) {
    this.#dots = new Int8DotProducts(dimensions);
  }

  get size(): number {
    return this.#count - this.#removed;
  }

  /** Slots in use, removed ones included: what `bytes` and the scan pay for. */
  get slots(): number {
    return this.#count;
  }

  /** Memory held: codes and results in WebAssembly, per-slot arrays and the rowid map (~40 bytes an entry). */
  get bytes(): number {
    return this.bytesFor(this.#rowids.length);
  }

  /** Slots for `vectors` plus room to grow by an eighth before the arrays are copied. */
  static capacityFor(vectors: number): number {
    return vectors + Math.ceil(vectors / 8) + 64;
  }

  bytesFor(slots: number): number {
    return slots * (this.#dots.stride + 4 + 8 + 1 + 8 + 8 + 40);
  }

  /** Room for `vectors` slots at once (a build knows its size; growth doubles otherwise). */
  reserve(vectors: number): void {
    if (vectors > this.#rowids.length) this.#grow(vectors);
  }

  /** Adds or replaces the vector of `rowid` (a unit vector, as stored in sqlite-vec). */
  upsert(rowid: number, scope: string, unit: Float32Array): void {
    let slot = this.#slots.get(rowid);
    if (slot === undefined) {
      // By a quarter, not double: a 100k person's index would jump from 45 to 90 MB for one add.
      if (this.#count === this.#rowids.length) this.#grow(Math.max(64, Math.ceil(this.#count * 1.25)));
      slot = this.#count++;
      this.#slots.set(rowid, slot);
    } else if (this.#scopes[slot] === 0) {
      this.#removed--;
    }
    this.#rowids[slot] = rowid;
    this.#scopes[slot] = SCOPE_CODES[scope] ?? 1;
    const codes = this.#dots
      .codes(this.#rowids.length)
      .subarray(slot * this.#dots.stride, (slot + 1) * this.#dots.stride);
    const { scale, error } = quantise(unit, codes, 127);
    this.#scales[slot] = scale;
    this.#errors[slot] = error;
  }

  remove(rowid: number): void {
    const slot = this.#slots.get(rowid);
    if (slot === undefined || this.#scopes[slot] === 0) return;
    this.#scopes[slot] = 0;
    this.#removed++;
  }

  /**
   * Rowids that may be among the `k` nearest to the unit vector `query` (every one that is, and
   * the few that cannot be ruled out), restricted to `scopes` when given.
   */
  candidates(query: Float32Array, k: number, scopes?: readonly string[]): number[] {
    const allowed = new Uint8Array(4);
    if (scopes) for (const scope of scopes) allowed[SCOPE_CODES[scope] ?? 0] = 1;
    else allowed.fill(1, 1);
    // Int16 query scaled so that no partial sum can overflow int32: Σ|Q|·127 < 2^31.
    const limit = Math.min(32_767, Math.floor(2 ** 31 / (128 * this.#dots.stride)));
    const codes = new Int16Array(this.#dots.stride);
    const { scale: queryScale, error: queryError } = quantise(query, codes, limit);
    const dots = this.#dots.compute(codes, this.#count);
    const lowers = new Float64Array(this.#count);
    const uppers = new Float64Array(this.#count);
    let eligible = 0;
    for (let slot = 0; slot < this.#count; slot++) {
      if (allowed[this.#scopes[slot] ?? 0] !== 1) continue;
      const approximate = queryScale * (this.#scales[slot] ?? 0) * (dots[slot] ?? 0);
      const bound = queryError + (1 + queryError) * (this.#errors[slot] ?? 0) + ROUNDING_SLACK;
      lowers[eligible] = approximate - bound;
      uppers[slot] = approximate + bound;
      eligible++;
    }
    const floor = eligible <= k ? Number.NEGATIVE_INFINITY : kthLargest(lowers.subarray(0, eligible), k);
    const result: number[] = [];
    for (let slot = 0; slot < this.#count; slot++) {
      if (allowed[this.#scopes[slot] ?? 0] === 1 && (uppers[slot] ?? 0) >= floor) {
        result.push(this.#rowids[slot] ?? 0);
      }
    }
    return result;
  }

  #grow(capacity: number): void {
    this.#dots.reserve(capacity);
    const grown = <T extends Float64Array | Uint8Array>(old: T, make: (size: number) => T): T => {
      const next = make(capacity);
      next.set(old as never);
      return next;
    };
    this.#rowids = grown(this.#rowids, (size) => new Float64Array(size));
    this.#scopes = grown(this.#scopes, (size) => new Uint8Array(size));
    this.#scales = grown(this.#scales, (size) => new Float64Array(size));
    this.#errors = grown(this.#errors, (size) => new Float64Array(size));
  }
}

/**
 * Writes round(value / scale) into `codes` with scale = max|value| / limit; returns the scale
 * and the Euclidean norm of what the codes miss, rounded up so the bound stays a bound.
 */
function quantise(
  values: Float32Array,
  codes: Int8Array | Int16Array,
  limit: number,
): { scale: number; error: number } {
  let maximum = 0;
  for (const value of values) maximum = Math.max(maximum, Math.abs(value));
  const scale = maximum > 0 ? maximum / limit : 1;
  let squared = 0;
  for (let index = 0; index < values.length; index++) {
    const value = values[index] ?? 0;
    const code = Math.max(-limit, Math.min(limit, Math.round(value / scale)));
    codes[index] = code;
    const miss = value - code * scale;
    squared += miss * miss;
  }
  return { scale, error: Math.sqrt(squared) * (1 + 1e-9) + 1e-12 };
}

/** The k-th largest value (1-based) by quickselect; reorders `values`. */
function kthLargest(values: Float64Array, k: number): number {
  let left = 0;
  let right = values.length - 1;
  const target = k - 1;
  while (left < right) {
    const pivot = values[(left + right) >>> 1] ?? 0;
    let low = left;
    let high = right;
    while (low <= high) {
      while ((values[low] ?? 0) > pivot) low++;
      while ((values[high] ?? 0) < pivot) high--;
      if (low <= high) {
        const swap = values[low] ?? 0;
        values[low] = values[high] ?? 0;
        values[high] = swap;
        low++;
        high--;
      }
    }
    if (target <= high) right = high;
    else if (target >= low) left = low;
    else return values[target] ?? 0;
  }
  return values[target] ?? 0;
}
