/**
 * The vectors of an OpenAI-style `/v1/embeddings` body (`{ data: [{ index, embedding }] }`), in
 * the order of the texts sent, or why the body cannot be used. Checked by hand rather than with
 * a schema: a turn embeds at least one vector of 768–3072 numbers, and a schema library validates
 * and copies each number on its own before the copy into a Float32Array this does in one pass.
 */
export function embeddingVectorsOf(
  body: unknown,
  expected: { texts: number; dimensions: number },
): Float32Array[] | { problem: 'malformed' } | { problem: 'dimensions'; got: number } {
  const data = (body as { data?: unknown } | null | undefined)?.data;
  if (!Array.isArray(data) || data.length !== expected.texts) return { problem: 'malformed' };
  const vectors = new Array<Float32Array | undefined>(expected.texts).fill(undefined);
  for (const item of data as unknown[]) {
    const { index, embedding } = (item ?? {}) as { index?: unknown; embedding?: unknown };
    if (!Number.isInteger(index) || !Array.isArray(embedding)) return { problem: 'malformed' };
    const slot = index as number;
    // Each text's vector exactly once: a repeated or out-of-range index would leave a hole.
    if (slot < 0 || slot >= expected.texts || vectors[slot] !== undefined) return { problem: 'malformed' };
    if (embedding.length !== expected.dimensions) return { problem: 'dimensions', got: embedding.length };
    const vector = new Float32Array(expected.dimensions);
    for (let at = 0; at < embedding.length; at++) {
      const value: unknown = embedding[at];
      if (typeof value !== 'number' || !Number.isFinite(value)) return { problem: 'malformed' };
      vector[at] = value;
    }
    vectors[slot] = vector;
  }
  return vectors as Float32Array[];
}
