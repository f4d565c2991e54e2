/**
 * One search channel's candidates, best first: a memory's rowid and its channel score (higher is
 * better). The lexical index and the SQLite searches both answer in it, so it lives below both.
 */
export type RowRanking = Array<{ rowid: number; score: number }>;
