/**
 * Turns texts into vectors. `id` names the model (e.g. `openai-compatible:nomic-embed-text`)
 * and is stored with the vectors, so a store never silently mixes two models' vectors.
 */
export interface Embedder {
  readonly id: string;
  readonly dimensions: number;
  embed(options: {
    texts: readonly string[];
    abortSignal?: AbortSignal | undefined;
  }): Promise<Float32Array[]>;
}

/** Cosine similarity in [-1, 1]; 0 when either vector is all zeros. */
export function cosineSimilarity(left: Float32Array, right: Float32Array): number {
  let dot = 0;
  let leftNorm = 0;
  let rightNorm = 0;
  for (let index = 0; index < left.length; index++) {
    const a = left[index] ?? 0;
    const b = right[index] ?? 0;
    dot += a * b;
    leftNorm += a * a;
    rightNorm += b * b;
  }
  if (leftNorm === 0 || rightNorm === 0) return 0;
  return dot / Math.sqrt(leftNorm * rightNorm);
}
