/**
 * review-anchored: does code changed in a PR retrieve the knowledge anchored to it? Measured through
 * the product (product-kb.ts): the set materialised as a knowledge base (its anchored source files
 * and one entry file per item, anchors as the items cite them, many drifted since), indexed by the
 * library; queries asked with `kb.search` (the diff hunk only) and `kb.inject` (subject + hunk +
 * changed files through `diff`, the way an orchestrator asks). Without the source files, the same
 * entries' anchors resolve to nothing: the product without anchored code. Reported on the queries
 * without message_overlap; textbook BM25 baselines in the same run (item text; item text + the code
 * the product read for the item).
 *
 * The anchored-code field weight is swept on odd query ids with the in-memory pipeline (pipeline.ts)
 * fed the product's code and anchor places; even ids are reported. Phase 1's bench-built field
 * (anchored-code.ts) is measured beside it for reference.
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
import { productAnchoring, productKb, type ProductKb } from "./retrieval/product-kb.js";
import { injectInputOf, pipelineSet, probeOf } from "./retrieval/sets.js";

const GOAL_HIT5 = 0.93;
const f3 = (x: number): string => x.toFixed(3);

type Split = { tune: Metrics; heldOut: Metrics; all: Metrics };
type Row = { system: string; query: string; field: string } & Split;

function split(queries: readonly BenchQuery[], ranked: ReadonlyMap<string, readonly string[]>, dataset: Dataset): Split {
  const per = queries.map((q) => ({ q, m: scoreQuery(ranked.get(q.id) ?? [], dataset.qrels.get(q.id) ?? new Map()) }));
  return {
    tune: meanMetrics(per.filter((p) => queryParity(p.q) === "odd").map((p) => p.m)),
    heldOut: meanMetrics(per.filter((p) => queryParity(p.q) === "even").map((p) => p.m)),
    all: meanMetrics(per.map((p) => p.m)),
  };
}

/** The in-memory pipeline (for the sweep and the ablation the product has no switch for). */
function pipeline(dataset: Dataset, queries: readonly BenchQuery[], set: PipelineSet, probe: (q: BenchQuery) => Probe, params: FusionParams, floor: boolean, lexical: LexicalParamsInput = {}): Split {
  const index = buildIndex(set, lexical);
  return split(queries, new Map(queries.map((q) => [q.id, decide(collect(index, set, probe(q), params.depth), params, floor, 10)])), dataset);
}

/** What the product returns for each query: `kb.search` on the hunk (floored or not), or `kb.inject` the way an orchestrator asks. */
async function product(p: ProductKb, queries: readonly BenchQuery[], how: "search" | "search-unfloored" | "inject"): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>();
  const back = (slug: string) => p.ids.get(slug) ?? slug;
  for (const q of queries) {
    if (how === "inject") {
      const input = injectInputOf(q);
      const result = await p.kb.inject({ run: `bench-${q.id}`, ...input, dryRun: true });
      out.set(q.id, result.entries.map((e) => back(e.id)));
    } else {
      const response = await p.kb.search(q.text, { limit: 10, ...(how === "search-unfloored" ? { floor: false } : {}) });
      out.set(q.id, response.results.map((r) => back(r.id)));
    }
  }
  return out;
}

async function main(): Promise<void> {
  const dataset = await loadDataset("review-anchored");
  const headline = dataset.subsets.find((s) => s.name === dataset.headline)!;
  const queries = dataset.queries.filter((q) => headline.includes(q) && [...(dataset.qrels.get(q.id)?.values() ?? [])].some((g) => g > 0));

  log("materialising review-anchored as a knowledge base (with and without its source files) and indexing it with the library");
  const t0 = performance.now();
  const { kb: withCode, code, anchors: places } = await productAnchoring(dataset);
  const indexSeconds = (performance.now() - t0) / 1000;
  const withoutCode = await productKb(dataset, "kb-anchored-nosources", { sources: false });
  const resolved = [...code.values()].filter((c) => c.trim()).length;
  log(`review-anchored: ${dataset.docs.length} entries (${resolved} with anchored code, indexed in ${indexSeconds.toFixed(1)} s), ${queries.length} queries`);

  // Textbook BM25 in the same run: item text, and item text + the code the product read for each item.
  const bm25Text = await evaluate(dataset, [textbookBm25()]);
  const bm25Code = await evaluate({ ...dataset, docs: dataset.docs.map((d) => ({ ...d, text: `${d.text}\n${code.get(d.id) ?? ""}` })) }, [textbookBm25()]);

  // The anchored-code field's weight, tuned on odd ids with the inject --diff query (the product's code and places).
  const productSet = pipelineSet(dataset, { anchoredCode: true, product: { code, anchors: places } });
  const inject = (q: BenchQuery) => probeOf(dataset, q, "inject");
  const weights = [0.02, 0.05, 0.1, 0.25, 0.5, 1];
  const sweep = weights.map((weight) => ({ weight, ...pipeline(dataset, queries, productSet, inject, DEFAULT_FUSION, true, { fields: { anchoredCode: { weight } } }) }));
  const best = [...sweep].sort((a, b) => b.tune.hit5 - a.tune.hit5 || b.tune.ndcg10 - a.tune.ndcg10)[0]!;
  console.log(`\nanchored-code weight sweep (tune Hit@5): ${sweep.map((s) => `${s.weight}: ${f3(s.tune.hit5)}`).join(", ")}; best ${best.weight}; FIELD_TABLE ${FIELD_TABLE.anchoredCode.weight}`);

  log("asking the product");
  const rows: Row[] = [];
  const add = (system: string, query: string, field: string, r: Split) => rows.push({ system, query, field, ...r });
  const bm = (report: Awaited<ReturnType<typeof evaluate>>): Split => ({
    tune: metricsOf(report, "textbook BM25", "tune (odd ids)")!,
    heldOut: metricsOf(report, "textbook BM25", "held-out (even ids)")!,
    all: metricsOf(report, "textbook BM25")!,
  });
  add("textbook BM25 (baseline)", "hunk", "item text", bm(bm25Text));
  add("textbook BM25 (baseline)", "hunk", "+ anchored code", bm(bm25Code));
  add("cairn search, unfloored", "hunk", "none", split(queries, await product(withoutCode, queries, "search-unfloored"), dataset));
  add("cairn search, unfloored", "hunk", "anchored code", split(queries, await product(withCode, queries, "search-unfloored"), dataset));
  add("cairn search (floored)", "hunk", "none", split(queries, await product(withoutCode, queries, "search"), dataset));
  add("cairn search (floored)", "hunk", "anchored code", split(queries, await product(withCode, queries, "search"), dataset));
  add("**what `inject --diff` returns**", "subject + hunk + changed files", "none", split(queries, await product(withoutCode, queries, "inject"), dataset));
  add("**what `inject --diff` returns**", "subject + hunk + changed files", "anchored code", split(queries, await product(withCode, queries, "inject"), dataset));
  const fieldWeight = { fields: { anchoredCode: { weight: FIELD_TABLE.anchoredCode.weight } } };
  add("inject --diff without the changed-code signal (pipeline)", "subject + hunk + changed files", "anchored code", pipeline(dataset, queries, productSet, inject, { ...DEFAULT_FUSION, anchorWeight: 0 }, true, fieldWeight));
  // Phase 1 for reference: the field built by the bench's own resolver (anchored-code.ts).
  add("phase 1: the bench-built field (pipeline)", "subject + hunk + changed files", "anchored code", pipeline(dataset, queries, pipelineSet(dataset, { anchoredCode: true }), inject, DEFAULT_FUSION, true, fieldWeight));

  const table = [
    "| system | query | anchored-code field | Hit@5 | Recall@5 | MRR@10 | nDCG@10 | Hit@5 tune / held-out |",
    "|---|---|---|---|---|---|---|---|",
    ...rows.map((r) => `| ${r.system} | ${r.query} | ${r.field} | ${f3(r.all.hit5)} | ${f3(r.all.recall5)} | ${f3(r.all.mrr10)} | ${f3(r.all.ndcg10)} | ${f3(r.tune.hit5)} / ${f3(r.heldOut.hit5)} |`),
  ].join("\n");
  console.log(`\n${table}`);

  const target = rows.find((r) => r.system.startsWith("**what") && r.field === "anchored code")!;
  const without = rows.find((r) => r.system.startsWith("**what") && r.field === "none")!;
  const phase1 = rows.find((r) => r.system.startsWith("phase 1"))!;
  const goals: GoalRow[] = [
    {
      metric: "review-anchored: what inject --diff returns, product index with the anchored-code field, held-out",
      goal: `Hit@5 ≥ ${GOAL_HIT5}`,
      measured: f3(target.heldOut.hit5),
      baseline: `without anchored code ${f3(without.heldOut.hit5)}; phase 1 bench-built field ${f3(phase1.heldOut.hit5)}; textbook BM25 + anchored code ${f3(rows[1]!.heldOut.hit5)}`,
      pass: target.heldOut.hit5 >= GOAL_HIT5,
    },
  ];
  const file = await writeResults("retrieval-anchored", goals, {
    queries: queries.length,
    entriesWithCode: resolved,
    indexSeconds,
    fieldWeightSweep: sweep.map((s) => ({ weight: s.weight, tuneHit5: s.tune.hit5, heldOutHit5: s.heldOut.hit5 })),
    rows,
    tables: { anchored: table },
  });
  log(`wrote ${file}`);
}

await main();
