/**
 * Lexical, vector and hybrid retrieval on the shared sets (../shared/bench), in one run: textbook
 * BM25, cairn lexical, vector only (the default embedder, USE-lite) and hybrid with DEFAULT_FUSION;
 * then the fusion sweep that chose the vector weight (odd query ids tune, even ids are held out).
 * The relevance floor is studied in bench/retrieval-floor.ts. Prints markdown tables, writes bench/results/retrieval-hybrid.json.
 *
 *   npx tsx bench/retrieval-hybrid.ts          everything
 *   npx tsx bench/retrieval-hybrid.ts --quick  the comparison only (no sweep, no floor study)
 *   npx tsx bench/retrieval-hybrid.ts --embedder '{"provider":"transformers","model":"m","path":"models/m"}'
 *                                              the same measurement with another embedding model
 *
 * The first run embeds ~4,600 texts (several minutes on 2 cores); vectors are cached in
 * bench/.cache/embeddings/ by text hash + embedder id, so later runs take about a minute.
 */
import path from "node:path";
import { resolveConfig } from "../src/config.js";
import { createEmbedder } from "../src/indexing/embedders/index.js";
import { DEFAULT_FUSION, type FusionParams } from "../src/retrieval/fusion.js";
import { benchArgs, log } from "./lib/args.js";
import { writeResults, type GoalRow } from "./lib/report.js";
import { textbookBm25 } from "./retrieval/baseline.js";
import { cairnLexical } from "./retrieval/cairn-lexical.js";
import { loadDataset, type BenchQuery, type Dataset } from "./retrieval/dataset.js";
import { evaluate, metricsOf, type Report } from "./retrieval/harness.js";
import {
  collectSignals,
  fuseSignals,
  hybrid,
  studyVectorFloor,
  type QuerySignals,
  type VectorFloorStudy,
} from "./retrieval/hybrid.js";
import { meanMetrics, METRIC_NAMES, scoreQuery, type Metrics } from "./retrieval/metrics.js";
import { headlineTable } from "./retrieval/report.js";
import { embedDataset, vectorOnly } from "./retrieval/vector.js";

const LEXICAL = "cairn lexical";
const VECTOR = "vector only (USE-lite)";
const HYBRID = "hybrid (DEFAULT_FUSION)";
const TUNE = "tune (odd ids)";
const HELD_OUT = "held-out (even ids)";
const KEYS = Object.keys(METRIC_NAMES) as Array<keyof Metrics>;
/** A small vector weight, shown beside the defaults to make the gate's effect and the vector's worth visible. */
const SMALL_VECTOR = { k: 10, vectorWeight: 0.15, vectorGate: "prose" } as const;

type SetRun = { dataset: Dataset; signals: Map<string, QuerySignals>; report: Report; judged: BenchQuery[] };

const f3 = (x: number): string => x.toFixed(3);
const subsetQueries = (run: SetRun, name: string): BenchQuery[] => {
  const subset = run.dataset.subsets.find((s) => s.name === name);
  return subset ? run.judged.filter(subset.includes) : [];
};

function perQuery(run: SetRun, queries: readonly BenchQuery[], params: FusionParams): Metrics[] {
  return queries.map((q) => scoreQuery(fuseSignals(run.signals.get(q.id)!, params, false).slice(0, 10).map((h) => h.id), run.dataset.qrels.get(q.id) ?? new Map()));
}

function metricsFor(run: SetRun, queries: readonly BenchQuery[], params: FusionParams): Metrics {
  return meanMetrics(perQuery(run, queries, params));
}

/** Mean per-query difference of hybrid minus lexical (vector weight 0), and twice its standard error: the noise band. */
function pairedDelta(run: SetRun, subset: string): Record<keyof Metrics, { delta: number; twoSe: number }> {
  const queries = subsetQueries(run, subset);
  const hyb = perQuery(run, queries, DEFAULT_FUSION);
  const lex = perQuery(run, queries, { ...DEFAULT_FUSION, vectorWeight: 0 });
  const out = {} as Record<keyof Metrics, { delta: number; twoSe: number }>;
  for (const k of KEYS) {
    const d = hyb.map((m, i) => m[k] - lex[i]![k]);
    const n = Math.max(1, d.length);
    const mean = d.reduce((a, b) => a + b, 0) / n;
    const variance = d.reduce((a, b) => a + (b - mean) ** 2, 0) / Math.max(1, n - 1);
    out[k] = { delta: mean, twoSe: 2 * Math.sqrt(variance / n) };
  }
  return out;
}

type RuleRow = { subset: string; metric: string; lexical: number; vector: number; hybrid: number; twoSe: number; ok: boolean };

/** The measured rule: hybrid scores at least the better of its two signals on every metric. */
function ruleRows(run: SetRun): RuleRow[] {
  return [run.report.headline, TUNE, HELD_OUT].flatMap((subset) => {
    const lex = metricsOf(run.report, LEXICAL, subset);
    const vec = metricsOf(run.report, VECTOR, subset);
    const hyb = metricsOf(run.report, HYBRID, subset);
    if (!lex || !vec || !hyb) return [];
    const paired = pairedDelta(run, subset);
    return KEYS.map((k) => ({ subset, metric: METRIC_NAMES[k], lexical: lex[k], vector: vec[k], hybrid: hyb[k], twoSe: paired[k].twoSe, ok: hyb[k] >= Math.max(lex[k], vec[k]) - 1e-12 }));
  });
}

/** `minGain`: the smallest gain over cairn lexical of any metric on any tuning half; `gain`: their sum. */
type SweepRow = { k: number; vectorWeight: number; vectorGate: FusionParams["vectorGate"]; ok: boolean; minGain: number; gain: number; perSet: Record<string, { tune: Metrics; heldOut: Metrics }> };

/** Choice rule: meet the rule on every tuning half; then the largest smallest gain (robust to one lucky metric); then the largest sum. */
const bySweepChoice = (a: SweepRow, b: SweepRow): number => Number(b.ok) - Number(a.ok) || b.minGain - a.minGain || b.gain - a.gain;

/** Grid over k, vector weight and gate; a config qualifies when it meets the rule on every tuning half. */
function sweep(runs: SetRun[]): SweepRow[] {
  const configs: Array<Pick<FusionParams, "k" | "vectorWeight" | "vectorGate">> = [{ k: DEFAULT_FUSION.k, vectorWeight: 0, vectorGate: DEFAULT_FUSION.vectorGate }];
  for (const vectorGate of ["prose", "none"] as const)
    for (const k of [5, 10, 20, 30, 60])
      for (const vectorWeight of [0.05, 0.1, 0.15, 0.2, 0.3, 0.5, 1]) configs.push({ k, vectorWeight, vectorGate });
  return configs.map((c) => {
    const params = { ...DEFAULT_FUSION, ...c };
    let ok = true;
    let gain = 0;
    let minGain = Infinity;
    const perSet: SweepRow["perSet"] = {};
    for (const run of runs) {
      const tune = metricsFor(run, subsetQueries(run, TUNE), params);
      const lex = metricsOf(run.report, LEXICAL, TUNE)!;
      const vec = metricsOf(run.report, VECTOR, TUNE)!;
      for (const key of KEYS) {
        ok &&= tune[key] >= Math.max(lex[key], vec[key]) - 1e-12;
        gain += tune[key] - lex[key];
        minGain = Math.min(minGain, tune[key] - lex[key]);
      }
      perSet[run.dataset.name] = { tune, heldOut: metricsFor(run, subsetQueries(run, HELD_OUT), params) };
    }
    return { ...c, ok, minGain, gain, perSet };
  });
}

/**
 * The protocol: the best config on the tuning halves (bySweepChoice) is kept only if it also meets
 * the rule on every held-out half; otherwise the vector weight is 0 — the vector list has not earned a place.
 */
function chooseFusion(rows: SweepRow[], runs: SetRun[]): { row: SweepRow; why: string } {
  const zero = rows.find((r) => r.vectorWeight === 0)!;
  const best = [...rows].filter((r) => r.vectorWeight > 0).sort(bySweepChoice)[0];
  if (!best?.ok || (best.minGain <= 0 && best.gain <= 0)) return { row: zero, why: "no vector weight meets the rule on every tuning half with a gain" };
  const failed = runs.flatMap((run) => {
    const m = best.perSet[run.dataset.name]!.heldOut;
    const lex = metricsOf(run.report, LEXICAL, HELD_OUT)!;
    const vec = metricsOf(run.report, VECTOR, HELD_OUT)!;
    return KEYS.filter((k) => m[k] < Math.max(lex[k], vec[k]) - 1e-12).map((k) => `${run.dataset.name} ${METRIC_NAMES[k]}`);
  });
  if (failed.length) return { row: zero, why: `best tuned config k ${best.k}, w ${best.vectorWeight}, ${best.vectorGate} falls below lexical on held-out ${failed.join(", ")}` };
  return { row: best, why: "best on the tuning halves, and meets the rule on the held-out halves" };
}

const embeddedOf = new Map<string, Awaited<ReturnType<typeof embedDataset>>>();

function printRule(run: SetRun): boolean {
  const rows = ruleRows(run);
  console.log(`\n| ${run.dataset.name}: hybrid ≥ max(lexical, vector)? | metric | lexical | vector | hybrid | hybrid − lexical ± 2 SE (paired) | ok |\n|---|---|---|---|---|---|---|`);
  for (const r of rows) {
    const d = r.hybrid - r.lexical;
    console.log(`| ${r.subset} | ${r.metric} | ${f3(r.lexical)} | ${f3(r.vector)} | ${f3(r.hybrid)} | ${d >= 0 ? "+" : "−"}${f3(Math.abs(d))} ± ${f3(r.twoSe)} | ${r.ok ? "✅" : "❌"} |`);
  }
  return rows.every((r) => r.ok);
}

function printSweep(rows: SweepRow[], runs: SetRun[]): void {
  const best = [...rows].sort(bySweepChoice);
  const cols = runs.flatMap((r) => [`${r.dataset.name} nDCG@10 tune / held-out`, `${r.dataset.name} Recall@5 tune / held-out`, `${r.dataset.name} Hit@5 tune / held-out`]);
  console.log(`\n| fusion (k, vector weight, gate) | rule met (tune) | min / Σ gain vs lexical (tune) | ${cols.join(" | ")} |\n|---|---|---|${cols.map(() => "---").join("|")}|`);
  const show = [...best.slice(0, 8), ...rows.filter((r) => r.vectorWeight === 1 && r.k === 60 && r.vectorGate === "none")];
  for (const r of show) {
    const cells = runs.flatMap((run) => {
      const m = r.perSet[run.dataset.name]!;
      return [`${f3(m.tune.ndcg10)} / ${f3(m.heldOut.ndcg10)}`, `${f3(m.tune.recall5)} / ${f3(m.heldOut.recall5)}`, `${f3(m.tune.hit5)} / ${f3(m.heldOut.hit5)}`];
    });
    const signed = (x: number) => `${x >= 0 ? "+" : "−"}${Math.abs(x).toFixed(3)}`;
    console.log(`| k ${r.k}, w ${r.vectorWeight}, ${r.vectorGate} | ${r.ok ? "yes" : "no"} | ${signed(r.minGain)} / ${signed(r.gain)} | ${cells.join(" | ")} |`);
  }
}

function vectorFloorStudy(runs: SetRun[]): Array<{ set: string } & VectorFloorStudy> {
  const rows = runs.flatMap((run) =>
    [0.75, 0.8, 0.85, 0.9].map((v) => ({ set: run.dataset.name, ...studyVectorFloor(run.dataset, subsetQueries(run, TUNE), run.signals, v) })),
  );
  console.log("\n| set (tuning half, prose queries) | vector floor | queries | vector-only admissions / query | precision |\n|---|---|---|---|---|");
  for (const r of rows) console.log(`| ${r.set} | ${r.vectorFloor} | ${r.queries} | ${r.admittedPerQuery.toFixed(2)} | ${f3(r.precision)} |`);
  return rows;
}

async function main(): Promise<void> {
  const { quick, embedder: wanted } = benchArgs();
  // `--embedder JSON` measures another model with the same command (validated like cairn.config.json).
  const embedder = createEmbedder(resolveConfig(wanted === undefined ? {} : { embedder: wanted }, "--embedder").embedder, { root: path.resolve(import.meta.dirname, "..") });
  if (!embedder) throw new Error("the embedder config gave no embedder (provider none?); expected a model to measure, e.g. --embedder '{\"provider\":\"use-lite\"}'");
  const runs: SetRun[] = [];
  try {
    for (const name of ["review-clippy", "cranfield"] as const) {
      const dataset = await loadDataset(name);
      log(`${name}: ${dataset.docs.length} docs, ${dataset.queries.length} queries; embedding (cached in bench/.cache/)`);
      const embedded = await embedDataset(dataset, embedder, undefined, (done, total) => log(`${name}: embedded ${done}/${total} new texts`));
      embeddedOf.set(name, embedded);
      const signals = collectSignals(dataset, embedded);
      const naive: FusionParams = { ...DEFAULT_FUSION, k: 60, vectorWeight: 1, vectorGate: "none" };
      const report = await evaluate(dataset, [
        textbookBm25(),
        cairnLexical({}, LEXICAL),
        vectorOnly(embedded, VECTOR),
        hybrid(signals, DEFAULT_FUSION, HYBRID),
        hybrid(signals, { ...DEFAULT_FUSION, ...SMALL_VECTOR }, "hybrid, vector weight 0.15, k 10, prose gate"),
        hybrid(signals, { ...DEFAULT_FUSION, ...SMALL_VECTOR, vectorGate: "none" }, "hybrid, vector weight 0.15, k 10, no gate"),
        hybrid(signals, naive, "naive RRF (k 60, equal weights, no gate)"),
      ]);
      const judged = dataset.queries.filter((q) => [...(dataset.qrels.get(q.id)?.values() ?? [])].some((g) => g > 0));
      runs.push({ dataset, signals, report, judged });
      console.log(`\n${headlineTable(report)}`);
    }
  } finally {
    await embedder.close?.();
  }
  const goals: GoalRow[] = [];
  for (const run of runs) {
    const ok = printRule(run);
    goals.push({ metric: `${run.dataset.name}: hybrid ≥ better of lexical and vector on every metric (headline, tune, held-out)`, goal: "all ✅", measured: ok ? "all ✅" : "some ❌", pass: ok });
  }
  let sweepRows: SweepRow[] = [];
  let fusionChoice: ReturnType<typeof chooseFusion> | undefined;
  let vectorFloor: ReturnType<typeof vectorFloorStudy> | undefined;
  if (!quick) {
    log("fusion sweep");
    sweepRows = sweep(runs);
    printSweep(sweepRows, runs);
    const choice = chooseFusion(sweepRows, runs);
    fusionChoice = choice;
    const d = DEFAULT_FUSION;
    console.log(`\nfusion choice (${choice.why}): k ${choice.row.k}, vector weight ${choice.row.vectorWeight}, gate ${choice.row.vectorGate}; DEFAULT_FUSION: k ${d.k}, vector weight ${d.vectorWeight}, gate ${d.vectorGate}`);
    vectorFloor = vectorFloorStudy(runs);
  }
  const file = await writeResults("retrieval-hybrid", goals, {
    quick,
    embedder: embedder.id,
    defaults: DEFAULT_FUSION,
    reports: runs.map((r) => r.report),
    rule: Object.fromEntries(runs.map((r) => [r.dataset.name, ruleRows(r)])),
    tables: { ranking: runs.map((r) => headlineTable(r.report)).join("\n\n") },
    ...(quick || !fusionChoice ? {} : { fusionChoice: { why: fusionChoice.why, k: fusionChoice.row.k, vectorWeight: fusionChoice.row.vectorWeight, vectorGate: fusionChoice.row.vectorGate }, sweep: sweepRows, vectorFloor }),
  });
  log(`wrote ${file}`);
}

await main();
