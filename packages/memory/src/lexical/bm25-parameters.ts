/**
 * Okapi BM25's parameters for memories, the same on every store (the embedded index and the
 * sparse vectors on Qdrant). k1 0.9 and b 0.4 are Anserini's values for short passages (MS MARCO),
 * not fitted here: a memory is one line, so a term said twice is rarely more relevant than once
 * (lower k1), and a longer line is mostly more chatter about the same thing, not about more
 * things (lower b). On LoCoMo's dev half they measured R_any@10 0.789 → 0.807 with the session
 * neighbours; on `pnpm bench:recall` recall@10 0.505 → 0.502 (docs/memory.md).
 */
export const BM25_PARAMETERS = { k1: 0.9, b: 0.4 } as const;
