/** Markdown tables of a retrieval Report: headline metrics, every subset, tuning vs held-out. */
import type { Report } from "./harness.js";
import { METRIC_NAMES, type Metrics } from "./metrics.js";

const KEYS = Object.keys(METRIC_NAMES) as Array<keyof Metrics>;
const f3 = (x: number): string => x.toFixed(3);
const delta = (x: number, base: number | undefined): string =>
  base === undefined ? "" : ` (${x - base >= 0 ? "+" : "−"}${Math.abs(x - base).toFixed(3)})`;

/** Headline subset: one row per ranker, each metric with its difference to the first ranker (the baseline). */
export function headlineTable(report: Report): string {
  const lines = [
    `| ${report.dataset} — ${report.headline} | ${KEYS.map((k) => METRIC_NAMES[k]).join(" | ")} | seconds |`,
    `|---|${KEYS.map(() => "---").join("|")}|---|`,
  ];
  const base = report.rankers[0]?.subsets.find((s) => s.subset === report.headline)?.metrics;
  report.rankers.forEach((r, i) => {
    const m = r.subsets.find((s) => s.subset === report.headline)?.metrics;
    if (!m) return;
    const cells = KEYS.map((k) => f3(m[k]) + (i === 0 ? "" : delta(m[k], base?.[k])));
    lines.push(`| ${r.ranker} | ${cells.join(" | ")} | ${r.seconds.toFixed(1)} |`);
  });
  return lines.join("\n");
}

/** One row per ranker, nDCG@10 and Hit@5 for every subset (headline, all, tuning half, held-out half). */
export function subsetTable(report: Report): string {
  const subsets = report.rankers[0]?.subsets ?? [];
  const header = subsets.flatMap((s) => [`nDCG@10 ${s.subset} (n=${s.queries})`, `Hit@5 ${s.subset}`]);
  const lines = [`| ${report.dataset} | ${header.join(" | ")} |`, `|---|${header.map(() => "---").join("|")}|`];
  for (const r of report.rankers) {
    lines.push(`| ${r.ranker} | ${r.subsets.flatMap((s) => [f3(s.metrics.ndcg10), f3(s.metrics.hit5)]).join(" | ")} |`);
  }
  return lines.join("\n");
}
