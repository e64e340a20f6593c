/** Ranking metrics: nDCG@10 (graded gains), Recall@5, MRR@10, Hit@5 (relevance > 0 counts as relevant). */

export type Metrics = { ndcg10: number; recall5: number; mrr10: number; hit5: number };

export const METRIC_NAMES: Record<keyof Metrics, string> = {
  ndcg10: "nDCG@10",
  recall5: "Recall@5",
  mrr10: "MRR@10",
  hit5: "Hit@5",
};

function dcg(gains: readonly number[]): number {
  let sum = 0;
  gains.forEach((gain, i) => {
    sum += (2 ** gain - 1) / Math.log2(i + 2);
  });
  return sum;
}

/** Metrics of one ranked list against one query's judgments (doc id → grade). */
export function scoreQuery(ranked: readonly string[], judged: ReadonlyMap<string, number>): Metrics {
  const relevant = [...judged.values()].filter((g) => g > 0).length;
  const gainAt = (i: number): number => judged.get(ranked[i] ?? "") ?? 0;
  const top10 = Array.from({ length: Math.min(10, ranked.length) }, (_, i) => gainAt(i));
  const ideal = [...judged.values()]
    .filter((g) => g > 0)
    .sort((a, b) => b - a)
    .slice(0, 10);
  const idcg = dcg(ideal);
  const hitsAt5 = top10.slice(0, 5).filter((g) => g > 0).length;
  const firstHit = top10.findIndex((g) => g > 0);
  return {
    ndcg10: idcg === 0 ? 0 : dcg(top10) / idcg,
    recall5: relevant === 0 ? 0 : hitsAt5 / relevant,
    mrr10: firstHit < 0 ? 0 : 1 / (firstHit + 1),
    hit5: hitsAt5 > 0 ? 1 : 0,
  };
}

/** Mean of per-query metrics; queries without any relevant judgment are skipped by the caller. */
export function meanMetrics(all: readonly Metrics[]): Metrics {
  const total: Metrics = { ndcg10: 0, recall5: 0, mrr10: 0, hit5: 0 };
  for (const m of all) {
    total.ndcg10 += m.ndcg10;
    total.recall5 += m.recall5;
    total.mrr10 += m.mrr10;
    total.hit5 += m.hit5;
  }
  const n = Math.max(1, all.length);
  return { ndcg10: total.ndcg10 / n, recall5: total.recall5 / n, mrr10: total.mrr10 / n, hit5: total.hit5 / n };
}
