/**
 * Vocabulary mismatch: how often a query and its relevant entry say the same thing in different
 * words, and what offline remedies earn. Sets: Cranfield (prose), and a paraphrase set written for
 * issue 10 (bench/retrieval/paraphrase.ts: 12 findings among 200 review-clippy findings as
 * distractors). Remedies, each against cairn lexical in the same run: RM3 pseudo-relevance feedback
 * (exists, off), term associations learned from the collection's own entries at index time
 * (retrieval/associations.ts: NPMI of document co-occurrence; its two settings chosen on the odd ids
 * of both sets) and the embedding model with a gated weight in fusion (`--embedder JSON` measures
 * another model: npm run bench -- retrieval-vocabulary --embedder '{"provider":"transformers",...}').
 * A remedy is kept only if it wins on held-out query ids (Cranfield even ids) without losing on
 * the paraphrase set. Writes bench/results/retrieval-vocabulary.json.
 */
import path from "node:path";
import { resolveConfig } from "../src/config.js";
import { createEmbedder } from "../src/indexing/embedders/index.js";
import { isPhrase, isShingle, tokenizeRegions } from "../src/indexing/lexical/index.js";
import { DEFAULT_FUSION, type FusionParams } from "../src/retrieval/fusion.js";
import { benchArgs, log } from "./lib/args.js";
import { writeResults, type GoalRow } from "./lib/report.js";
import { associationExpansion, DEFAULT_ASSOCIATIONS } from "./retrieval/associations.js";
import { cairnLexical } from "./retrieval/cairn-lexical.js";
import { loadDataset, queryParity, type Dataset } from "./retrieval/dataset.js";
import { evaluate, metricsOf } from "./retrieval/harness.js";
import { collectSignals, hybrid } from "./retrieval/hybrid.js";
import { paraphraseSet } from "./retrieval/paraphrase.js";
import { embedDataset } from "./retrieval/vector.js";

const f3 = (x: number): string => x.toFixed(3);
const words = (text: string): Set<string> => new Set(tokenizeRegions(text).flatMap((r) => r.terms.filter((t) => !isPhrase(t) && !isShingle(t) && !/^\W+$/.test(t))));

/** Per (query, relevant document) pair: how many of the query's words the document holds. */
function mismatch(dataset: Dataset): { pairs: number; none: number; atMostOne: number; meanShare: number } {
  const docs = new Map(dataset.docs.map((d) => [d.id, words(`${d.title}\n${d.text}`)]));
  let pairs = 0;
  let none = 0;
  let atMostOne = 0;
  let share = 0;
  for (const q of dataset.queries) {
    const qw = words(q.text);
    for (const [id, grade] of dataset.qrels.get(q.id) ?? []) {
      const dw = docs.get(id);
      if (grade <= 0 || !dw || qw.size === 0) continue;
      const shared = [...qw].filter((w) => dw.has(w)).length;
      pairs++;
      if (shared === 0) none++;
      if (shared <= 1) atMostOne++;
      share += shared / qw.size;
    }
  }
  return { pairs, none: none / Math.max(1, pairs), atMostOne: atMostOne / Math.max(1, pairs), meanShare: share / Math.max(1, pairs) };
}

/** Settings of the term-association remedy tried on the tuning halves (the rest from DEFAULT_ASSOCIATIONS). */
const ASSOCIATION_GRID = [
  { beta: 0.1, minNpmi: 0.3 },
  { beta: 0.25, minNpmi: 0.3 },
  { beta: 0.5, minNpmi: 0.3 },
  { beta: 0.25, minNpmi: 0.5 },
  { beta: 0.5, minNpmi: 0.5 },
];
const associationName = (a: { beta: number; minNpmi: number }) => `+ term associations (NPMI ≥ ${a.minNpmi}, weight ${a.beta})`;

async function main(): Promise<void> {
  const { embedder: wanted } = benchArgs();
  const config = resolveConfig(wanted === undefined ? {} : { embedder: wanted }, "--embedder").embedder;
  const embedder = createEmbedder(config, { root: path.resolve(import.meta.dirname, "..") });
  if (!embedder) throw new Error("--embedder gave no embedder (provider none?); expected a model to measure");
  const cranfield = await loadDataset("cranfield");
  const clippy = await loadDataset("review-clippy");
  const para = paraphraseSet();
  const paraphrase: Dataset = { ...para, docs: [...para.docs, ...clippy.docs.slice(0, 200)], subsets: [{ name: "all", includes: () => true }, { name: "tune (odd ids)", includes: (q) => queryParity(q) === "odd" }, { name: "held-out (even ids)", includes: (q) => queryParity(q) === "even" }] };

  const mismatchRows = [
    { set: "Cranfield", ...mismatch(cranfield) },
    { set: "paraphrase (written for issue 10)", ...mismatch(para) },
  ];
  const rows: Array<Record<string, string>> = [];
  const keep: string[] = [];
  const verdicts: Array<{ remedy: string; kept: boolean; why: string }> = [];
  const results: Record<string, unknown> = {};
  try {
    for (const dataset of [cranfield, paraphrase]) {
      log(`${dataset.name}: embedding (cached in bench/.cache/)`);
      const embedded = await embedDataset(dataset, embedder);
      const signals = collectSignals(dataset, embedded);
      const gated = (w: number): FusionParams => ({ ...DEFAULT_FUSION, k: 10, vectorWeight: w, vectorGate: "prose" });
      const report = await evaluate(dataset, [
        cairnLexical({}, "cairn lexical"),
        cairnLexical({ feedback: { docs: 10 } }, "+ RM3 (10 docs, 10 terms)"),
        ...ASSOCIATION_GRID.map((a) => associationExpansion({ ...DEFAULT_ASSOCIATIONS, ...a }, associationName(a))),
        hybrid(signals, gated(0.15), `+ ${embedder.id}, gated weight 0.15`),
        hybrid(signals, gated(0.3), `+ ${embedder.id}, gated weight 0.3`),
        hybrid(signals, gated(1), `+ ${embedder.id}, gated weight 1`),
      ]);
      results[dataset.name] = report;
      for (const r of report.rankers) {
        const m = metricsOf(report, r.ranker, "held-out (even ids)")!;
        const t = metricsOf(report, r.ranker, "tune (odd ids)")!;
        rows.push({ set: dataset.name, ranker: r.ranker, "nDCG@10 tune / held-out": `${f3(t.ndcg10)} / ${f3(m.ndcg10)}`, "Hit@5 tune / held-out": `${f3(t.hit5)} / ${f3(m.hit5)}`, "MRR@10 held-out": f3(m.mrr10) });
      }
    }
  } finally {
    await embedder.close?.();
  }
  // The rule: a remedy stays only if it beats cairn lexical on the held-out half of both sets (nDCG@10 and Hit@5).
  const reports = [results["cranfield"], results["paraphrase"]] as Array<Awaited<ReturnType<typeof evaluate>>>;
  // Term associations: one setting goes to the verdict, the one with the best tuning-half (odd ids) nDCG@10 gain on the worse of the two sets.
  const tuneGain = (name: string) => Math.min(...reports.map((rep) => metricsOf(rep, name, "tune (odd ids)")!.ndcg10 - metricsOf(rep, "cairn lexical", "tune (odd ids)")!.ndcg10));
  const chosenAssociation = ASSOCIATION_GRID.map(associationName).sort((a, b) => tuneGain(b) - tuneGain(a))[0]!;
  log(`term associations: ${ASSOCIATION_GRID.map((a) => `${associationName(a)} tune ${tuneGain(associationName(a)).toFixed(4)}`).join("; ")}; chosen ${chosenAssociation}`);
  const isAssociation = (name: string) => name.startsWith("+ term associations");
  for (const name of reports[0]!.rankers.map((r) => r.ranker).filter((n) => n !== "cairn lexical" && (!isAssociation(n) || n === chosenAssociation))) {
    const gains = reports.map((rep) => {
      const base = metricsOf(rep, "cairn lexical", "held-out (even ids)")!;
      const m = metricsOf(rep, name, "held-out (even ids)")!;
      return { ndcg: m.ndcg10 - base.ndcg10, hit: m.hit5 - base.hit5 };
    });
    const ok = gains.every((g) => g.ndcg >= 0 && g.hit >= 0) && gains.some((g) => g.ndcg > 0 || g.hit > 0);
    if (ok) keep.push(name);
    verdicts.push({ remedy: isAssociation(name) ? `${name}, chosen on odd ids` : name, kept: ok, why: gains.map((g, i) => `${i ? "paraphrase" : "Cranfield"} held-out nDCG@10 ${g.ndcg >= 0 ? "+" : "−"}${f3(Math.abs(g.ndcg))}, Hit@5 ${g.hit >= 0 ? "+" : "−"}${f3(Math.abs(g.hit))}`).join("; ") });
  }
  const mismatchTable = [
    "| set | (query, relevant entry) pairs | sharing no word | sharing ≤ 1 word | mean share of the query's words in the entry |",
    "|---|---|---|---|---|",
    ...mismatchRows.map((r) => `| ${r.set} | ${r.pairs} | ${(100 * r.none).toFixed(1)}% | ${(100 * r.atMostOne).toFixed(1)}% | ${(100 * r.meanShare).toFixed(1)}% |`),
  ].join("\n");
  const remedyTable = [
    "| set | ranker | nDCG@10 tune / held-out | Hit@5 tune / held-out | MRR@10 held-out |",
    "|---|---|---|---|---|",
    ...rows.map((r) => `| ${r["set"]} | ${r["ranker"]} | ${r["nDCG@10 tune / held-out"]} | ${r["Hit@5 tune / held-out"]} | ${r["MRR@10 held-out"]} |`),
  ].join("\n");
  const verdictTable = ["| remedy | kept? | held-out difference to cairn lexical |", "|---|---|---|", ...verdicts.map((v) => `| ${v.remedy} | ${v.kept ? "kept" : "dropped"} | ${v.why} |`)].join("\n");
  console.log(`\n${mismatchTable}\n\n${remedyTable}\n\n${verdictTable}`);
  const goals: GoalRow[] = verdicts.map((v) => ({ metric: `vocabulary mismatch remedy: ${v.remedy}`, goal: "wins on held-out ids of both sets", measured: v.why, pass: v.kept }));
  const file = await writeResults("retrieval-vocabulary", goals, { embedder: embedder.id, mismatch: mismatchRows, verdicts, kept: keep, reports: results, tables: { mismatch: mismatchTable, remedies: remedyTable, verdicts: verdictTable } });
  log(`wrote ${file}`);
}

await main();
