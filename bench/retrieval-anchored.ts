/**
 * review-anchored: does code changed in a PR retrieve the knowledge anchored to it? The set is
 * materialised into bench/.cache/ (its own materialize.mjs) and each entry's anchors are resolved
 * there (symbol → definition, anchored-code.ts). Reported, on the queries without message_overlap:
 *
 * - query = the diff hunk only, and = subject + hunk + changed files the way `inject --diff` asks
 *   (inject's own query builder, diff parser, changed-code signal, floor and keyword focus);
 * - each without and with the anchored-code field (the resolved lines, a lexical field of its own);
 * - textbook BM25 baselines in the same run (item text; item text + the same anchored code).
 *
 * The anchored-code field weight is swept on odd query ids; even ids are reported.
 * Writes bench/results/retrieval-anchored.json.   npx tsx bench/retrieval-anchored.ts
 */
import { DEFAULT_FUSION, type FusionParams } from "../src/retrieval/fusion.js";
import { FIELD_TABLE, type LexicalParamsInput } from "../src/indexing/lexical/index.js";
import { log } from "./lib/args.js";
import { writeResults, type GoalRow } from "./lib/report.js";
import { textbookBm25 } from "./retrieval/baseline.js";
import { loadDataset, queryParity, type BenchQuery, type Dataset } from "./retrieval/dataset.js";
import { evaluate, metricsOf } from "./retrieval/harness.js";
import { meanMetrics, scoreQuery, type Metrics } from "./retrieval/metrics.js";
import { buildIndex, collect, decide, type PipelineSet, type Probe } from "./retrieval/pipeline.js";
import { pipelineSet, probeOf } from "./retrieval/sets.js";
import { resolveAnchors, materializeAnchored } from "./retrieval/anchored-code.js";
import { BENCH_DATA_DIR } from "./retrieval/dataset.js";
import path from "node:path";

const GOAL_HIT5 = 0.93;
const f3 = (x: number): string => x.toFixed(3);

type Row = { system: string; query: string; field: string; tune: Metrics; heldOut: Metrics; all: Metrics };

function run(dataset: Dataset, queries: readonly BenchQuery[], set: PipelineSet, probe: (q: BenchQuery) => Probe, params: FusionParams, floor: boolean, lexical: LexicalParamsInput = {}): { tune: Metrics; heldOut: Metrics; all: Metrics } {
  const index = buildIndex(set, lexical);
  const per = queries.map((q) => ({ q, m: scoreQuery(decide(collect(index, set, probe(q), params.depth), params, floor, 10), dataset.qrels.get(q.id) ?? new Map()) }));
  return {
    tune: meanMetrics(per.filter((p) => queryParity(p.q) === "odd").map((p) => p.m)),
    heldOut: meanMetrics(per.filter((p) => queryParity(p.q) === "even").map((p) => p.m)),
    all: meanMetrics(per.map((p) => p.m)),
  };
}

async function main(): Promise<void> {
  const dataset = await loadDataset("review-anchored");
  const headline = dataset.subsets.find((s) => s.name === dataset.headline)!;
  const queries = dataset.queries.filter((q) => headline.includes(q) && [...(dataset.qrels.get(q.id)?.values() ?? [])].some((g) => g > 0));
  const plainSet = pipelineSet(dataset);
  const codeSet = pipelineSet(dataset, { anchoredCode: true });
  log(`review-anchored: ${dataset.docs.length} entries (${(100 * (codeSet.resolvedShare ?? 0)).toFixed(0)}% of anchors resolve in the materialised tree), ${queries.length} queries`);

  // Textbook BM25 in the same run: item text, and item text + the same resolved anchored code.
  const root = materializeAnchored(path.join(BENCH_DATA_DIR, "review-anchored"));
  const resolved = resolveAnchors(root, dataset.docs);
  const withCode = { ...dataset, docs: dataset.docs.map((d) => ({ ...d, text: `${d.text}\n${(resolved.get(d.id) ?? []).map((a) => a.code).join("\n")}` })) };
  const bm25Text = await evaluate(dataset, [textbookBm25()]);
  const bm25Code = await evaluate(withCode, [textbookBm25()]);

  // The anchored-code field's weight, tuned on odd ids with the inject --diff query.
  const inject = (q: BenchQuery) => probeOf(dataset, q, "inject");
  const hunk = (q: BenchQuery): Probe => ({ full: q.text });
  const weights = [0.02, 0.05, 0.1, 0.25, 0.5, 1];
  const sweep = weights.map((weight) => {
    const lexical = { fields: { anchoredCode: { weight } } };
    return { weight, ...run(dataset, queries, codeSet, inject, DEFAULT_FUSION, true, lexical) };
  });
  const best = [...sweep].sort((a, b) => b.tune.hit5 - a.tune.hit5 || b.tune.ndcg10 - a.tune.ndcg10)[0]!;
  console.log(`\nanchored-code weight sweep (tune Hit@5): ${sweep.map((s) => `${s.weight}: ${f3(s.tune.hit5)}`).join(", ")}; best ${best.weight}; FIELD_TABLE ${FIELD_TABLE.anchoredCode.weight}`);
  const fieldWeight = { fields: { anchoredCode: { weight: FIELD_TABLE.anchoredCode.weight } } };

  const rows: Row[] = [];
  const add = (system: string, query: string, field: string, r: { tune: Metrics; heldOut: Metrics; all: Metrics }) => rows.push({ system, query, field, ...r });
  const bm = (report: Awaited<ReturnType<typeof evaluate>>) => ({
    tune: metricsOf(report, "textbook BM25", "tune (odd ids)")!,
    heldOut: metricsOf(report, "textbook BM25", "held-out (even ids)")!,
    all: metricsOf(report, "textbook BM25")!,
  });
  add("textbook BM25 (baseline)", "hunk", "item text", bm(bm25Text));
  add("textbook BM25 (baseline)", "hunk", "+ anchored code", bm(bm25Code));
  const unfloored = { ...DEFAULT_FUSION };
  add("cairn search, unfloored", "hunk", "none", run(dataset, queries, plainSet, hunk, unfloored, false));
  add("cairn search, unfloored", "hunk", "anchored code", run(dataset, queries, codeSet, hunk, unfloored, false, fieldWeight));
  add("cairn search (floored)", "hunk", "none", run(dataset, queries, plainSet, hunk, DEFAULT_FUSION, true));
  add("cairn search (floored)", "hunk", "anchored code", run(dataset, queries, codeSet, hunk, DEFAULT_FUSION, true, fieldWeight));
  add("**what `inject --diff` returns**", "subject + hunk + changed files", "none", run(dataset, queries, plainSet, inject, DEFAULT_FUSION, true));
  add("**what `inject --diff` returns**", "subject + hunk + changed files", "anchored code", run(dataset, queries, codeSet, inject, DEFAULT_FUSION, true, fieldWeight));
  add("inject --diff without the changed-code signal", "subject + hunk + changed files", "anchored code", run(dataset, queries, codeSet, inject, { ...DEFAULT_FUSION, anchorWeight: 0 }, true, fieldWeight));

  const table = [
    "| system | query | anchored-code field | Hit@5 | Recall@5 | MRR@10 | nDCG@10 | Hit@5 tune / held-out |",
    "|---|---|---|---|---|---|---|---|",
    ...rows.map((r) => `| ${r.system} | ${r.query} | ${r.field} | ${f3(r.all.hit5)} | ${f3(r.all.recall5)} | ${f3(r.all.mrr10)} | ${f3(r.all.ndcg10)} | ${f3(r.tune.hit5)} / ${f3(r.heldOut.hit5)} |`),
  ].join("\n");
  console.log(`\n${table}`);

  const target = rows.find((r) => r.system.startsWith("**what") && r.field === "anchored code")!;
  const shipped = rows.find((r) => r.system.startsWith("**what") && r.field === "none")!;
  const goals: GoalRow[] = [
    {
      metric: `review-anchored: what inject --diff returns, with the anchored-code field (phase 2), held-out`,
      goal: `Hit@5 ≥ ${GOAL_HIT5}`,
      measured: f3(target.heldOut.hit5),
      baseline: `textbook BM25 + anchored code ${f3(rows[1]!.heldOut.hit5)}; item text ${f3(rows[0]!.heldOut.hit5)}`,
      pass: target.heldOut.hit5 >= GOAL_HIT5,
    },
    {
      metric: "review-anchored: what inject --diff returns today (no anchored-code field), held-out",
      goal: "—",
      measured: f3(shipped.heldOut.hit5),
      baseline: `hunk-only search ${f3(rows.find((r) => r.system === "cairn search (floored)" && r.field === "none")!.heldOut.hit5)}`,
      pass: null,
    },
  ];
  const file = await writeResults("retrieval-anchored", goals, {
    queries: queries.length,
    resolvedShare: codeSet.resolvedShare,
    fieldWeightSweep: sweep.map((s) => ({ weight: s.weight, tuneHit5: s.tune.hit5, heldOutHit5: s.heldOut.hit5 })),
    rows,
    tables: { anchored: table },
  });
  log(`wrote ${file}`);
}

await main();
