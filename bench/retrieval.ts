/**
 * Retrieval quality on the shared sets (../shared/bench): textbook BM25 against cairn's lexical
 * index and its ablations, in one run. Prints markdown tables and writes bench/results/retrieval.json.
 *
 *   npx tsx bench/retrieval.ts            every ranker, both sets
 *   npx tsx bench/retrieval.ts --quick    baseline and cairn lexical only
 *
 * Tuning used the odd query ids only; the even ids are the held-out half. Every set maps `title`
 * to the entry title and `text` to its body (bench/retrieval/cairn-lexical.ts), nothing per set.
 * To compare vector-only or hybrid retrieval, add their Ranker to `rankersFor` (see
 * bench/retrieval/ranker.ts): `evaluate()` runs them side by side on the same queries.
 */
import { benchArgs, log } from "./lib/args.js";
import { writeResults, type GoalRow } from "./lib/report.js";
import { textbookBm25 } from "./retrieval/baseline.js";
import { DEFAULT_LEXICAL_PARAMS } from "../src/indexing/lexical/index.js";
import { cairnLexical } from "./retrieval/cairn-lexical.js";
import { loadDataset, type Dataset } from "./retrieval/dataset.js";
import { evaluate, metricsOf, type Report } from "./retrieval/harness.js";
import type { Ranker } from "./retrieval/ranker.js";
import { headlineTable, subsetTable } from "./retrieval/report.js";

const BASELINE = "textbook BM25";
const CAIRN = "cairn lexical";

/** Each ablation switches one feature of cairn's defaults off, to show what it is worth. */
function ablations(): Ranker[] {
  return [
    cairnLexical({ feedback: { docs: 10 } }, "+ RM3 feedback on prose queries (off by default)"),
    cairnLexical({ tokenizer: { shingles: "none" } }, "− code shingles and prose phrases"),
    cairnLexical({ tokenizer: { shingles: "code" } }, "− prose phrases"),
    cairnLexical({ tokenizer: { codeRegions: false } }, "− code/prose regions (all text as code)"),
    cairnLexical({ code: { weight: 1, b: 0.75 } }, "− code sub-field (weight 1, b 0.75)"),
    cairnLexical({ tokenizer: { splitIdentifiers: false, partBigrams: false } }, "− identifier splitting"),
    cairnLexical({ tokenizer: { operators: false, chains: false, macros: false } }, "− operators, chains, macros"),
    cairnLexical({ tokenizer: { stem: false } }, "− Porter stemming"),
    cairnLexical({ tokenizer: { stopwords: "none" } }, "− stopwords"),
  ];
}

function rankersFor(_dataset: Dataset, quick: boolean): Ranker[] {
  return [textbookBm25(), cairnLexical({}, CAIRN), ...(quick ? [] : ablations())];
}

function goalRow(report: Report, metric: "hit5" | "ndcg10", label: string, goal: number, subset?: string): GoalRow {
  const ours = metricsOf(report, CAIRN, subset)?.[metric];
  const base = metricsOf(report, BASELINE, subset)?.[metric];
  const where = subset ?? report.headline;
  return {
    metric: `${report.dataset} ${label}, cairn lexical (${where})`,
    goal: `≥ ${goal.toFixed(2)}`,
    measured: ours === undefined ? "?" : ours.toFixed(3),
    baseline: base === undefined ? "" : `textbook BM25 ${base.toFixed(3)}`,
    pass: ours === undefined ? null : ours >= goal,
  };
}

async function main(): Promise<void> {
  const { quick } = benchArgs();
  const reports: Report[] = [];
  for (const name of ["review-clippy", "cranfield"] as const) {
    const dataset = await loadDataset(name);
    log(`${name}: ${dataset.docs.length} docs, ${dataset.queries.length} queries`);
    const report = await evaluate(dataset, rankersFor(dataset, quick));
    reports.push(report);
    console.log(`\n${headlineTable(report)}\n\n${subsetTable(report)}\n`);
  }
  const [clippy, cranfield] = reports;
  const goals: GoalRow[] = [];
  if (clippy) {
    goals.push(goalRow(clippy, "hit5", "Hit@5", 0.7));
    goals.push(goalRow(clippy, "hit5", "Hit@5", 0.7, "held-out (even ids)"));
  }
  if (cranfield) {
    goals.push(goalRow(cranfield, "ndcg10", "nDCG@10", 0.38));
    goals.push(goalRow(cranfield, "ndcg10", "nDCG@10", 0.38, "held-out (even ids)"));
  }
  const file = await writeResults("retrieval", goals, { quick, params: DEFAULT_LEXICAL_PARAMS, reports });
  log(`wrote ${file}`);
}

await main();
