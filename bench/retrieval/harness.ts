/** Run rankers over a dataset and score every query subset with the same metrics. */
import { performance } from "node:perf_hooks";
import type { Dataset } from "./dataset.js";
import { meanMetrics, scoreQuery, type Metrics } from "./metrics.js";
import type { Ranker } from "./ranker.js";

export type SubsetReport = { subset: string; queries: number; metrics: Metrics };

export type RankerReport = {
  ranker: string;
  /** Wall time of `rank` over the whole set (index build + all queries). */
  seconds: number;
  subsets: SubsetReport[];
};

export type Report = {
  dataset: string;
  docs: number;
  /** Queries with at least one relevant judgment (the others are skipped). */
  queries: number;
  skippedQueries: number;
  headline: string;
  rankers: RankerReport[];
};

/** Ranking depth every ranker is asked for (the deepest metric cut-off). */
export const DEPTH = 10;

const hasRelevant = (judged: ReadonlyMap<string, number> | undefined): boolean =>
  judged !== undefined && [...judged.values()].some((g) => g > 0);

/** Rank all queries with each ranker in turn and report the metrics of every subset. */
export async function evaluate(dataset: Dataset, rankers: readonly Ranker[]): Promise<Report> {
  const judged = dataset.queries.filter((q) => hasRelevant(dataset.qrels.get(q.id)));
  const reports: RankerReport[] = [];
  for (const ranker of rankers) {
    const t0 = performance.now();
    const rankings = await ranker.rank(dataset.docs, judged, DEPTH);
    const seconds = (performance.now() - t0) / 1000;
    const subsets = dataset.subsets.map((subset) => {
      const scored = judged
        .filter(subset.includes)
        .map((q) => scoreQuery(rankings.get(q.id) ?? [], dataset.qrels.get(q.id) ?? new Map()));
      return { subset: subset.name, queries: scored.length, metrics: meanMetrics(scored) };
    });
    reports.push({ ranker: ranker.name, seconds, subsets });
  }
  return {
    dataset: dataset.name,
    docs: dataset.docs.length,
    queries: judged.length,
    skippedQueries: dataset.queries.length - judged.length,
    headline: dataset.headline,
    rankers: reports,
  };
}

/** The metrics of one ranker on one subset; undefined when either is absent. */
export function metricsOf(report: Report, ranker: string, subset = report.headline): Metrics | undefined {
  return report.rankers.find((r) => r.ranker === ranker)?.subsets.find((s) => s.subset === subset)?.metrics;
}
