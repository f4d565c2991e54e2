/** One question's evidence and what a search ranked, as memory ids. */
export interface RankedQuestion {
  category: number;
  evidence: readonly string[];
  ranked: readonly string[];
}

export interface RecallFigures {
  questions: number;
  r_any_at_5: number;
  r_any_at_10: number;
  evidence_recall_at_10: number;
}

const round = (value: number) => Math.round(value * 1_000) / 1_000;

/**
 * The protocol's figures: R_any@k, the share of questions with at least one evidence turn in the
 * first k; evidence recall@k, the share of all evidence turns (over all questions) in the first k.
 */
export function recallFigures(questions: readonly RankedQuestion[]): RecallFigures {
  const anyAt = (k: number) =>
    questions.filter((question) => question.evidence.some((id) => question.ranked.slice(0, k).includes(id)))
      .length / Math.max(1, questions.length);
  let found = 0;
  let total = 0;
  for (const question of questions) {
    const top = new Set(question.ranked.slice(0, 10));
    total += question.evidence.length;
    found += question.evidence.filter((id) => top.has(id)).length;
  }
  return {
    questions: questions.length,
    r_any_at_5: round(anyAt(5)),
    r_any_at_10: round(anyAt(10)),
    evidence_recall_at_10: round(found / Math.max(1, total)),
  };
}

/** Overall and per category (1 multi-hop, 2 temporal, 3 open-domain, 4 single-hop). */
export function figuresByCategory(questions: readonly RankedQuestion[]): Record<string, RecallFigures> {
  const figures: Record<string, RecallFigures> = { all: recallFigures(questions) };
  for (const category of [1, 2, 3, 4]) {
    figures[`category_${category}`] = recallFigures(
      questions.filter((question) => question.category === category),
    );
  }
  return figures;
}

export const CATEGORY_NAMES: Record<string, string> = {
  all: 'all',
  category_1: '1 multi-hop',
  category_2: '2 temporal',
  category_3: '3 open-domain',
  category_4: '4 single-hop',
};
