/**
 * The relevance floor measured both ways on every shared set (cranfield; review-clippy without
 * in_item_text; review-anchored without message_overlap), with plain queries and with inject-style
 * queries (an agent's keywords + a prose PR summary, + diff and changed files on review-anchored):
 *
 * - keeps: Hit@5 and Recall@5 after the floor, relative to the unfloored ranking of the same pipeline;
 * - cuts: entries handed over per query when nothing relevant exists (the query's relevant
 *   documents removed from the index for that query), and for off-topic queries (another set's).
 *
 * The floor parameters are swept; the choice rule (keep ≥ 98% of Hit@5 on every tuning half — odd
 * query ids — of every set and style, then the fewest injections when nothing is relevant) picks
 * DEFAULT_FUSION's floor; even ids are reported. Writes bench/results/retrieval-floor.json.
 *
 *   npx tsx bench/retrieval-floor.ts [--quick]
 */
import { DEFAULT_FUSION } from "../src/retrieval/fusion.js";
import { benchArgs, log } from "./lib/args.js";
import { writeResults, type GoalRow } from "./lib/report.js";
import { loadDataset, queryParity, type BenchQuery, type Dataset, type SetName } from "./retrieval/dataset.js";
import { cut, floorGrid, floorOutcome, kept, offTopicInjected, PREVIOUS_FLOOR, settingName, type FloorOutcome, type FloorSetting, type Judged } from "./retrieval/floor-study.js";
import { buildIndex, collect, collectBothWays, type Collected } from "./retrieval/pipeline.js";
import { productAnchoring } from "./retrieval/product-kb.js";
import { pipelineSet, probeOf, type QueryStyle } from "./retrieval/sets.js";

const SETS: readonly SetName[] = ["cranfield", "review-clippy", "review-anchored"];
const STYLES: readonly QueryStyle[] = ["plain", "inject"];
const DEPTH = DEFAULT_FUSION.depth;
const KEEP_GOAL = 0.98;
const CUT_GOAL = 0.5;
/** Off-topic queries per set (a sample keeps the run short). */
const OFF_TOPIC = 300;

type Cell = { set: string; style: QueryStyle; tune: Judged[]; heldOut: Judged[]; withRelevant: Map<string, Collected>; withoutRelevant: Map<string, Collected>; offTopic: Collected[] };

const f3 = (x: number): string => x.toFixed(3);
const pct = (x: number): string => `${(100 * x).toFixed(1)}%`;

function judgedHeadline(dataset: Dataset): BenchQuery[] {
  const headline = dataset.subsets.find((s) => s.name === dataset.headline)!;
  return dataset.queries.filter((q) => headline.includes(q) && [...(dataset.qrels.get(q.id)?.values() ?? [])].some((g) => g > 0));
}

const judgedOf = (dataset: Dataset, q: BenchQuery): Judged => ({ id: q.id, relevant: dataset.qrels.get(q.id) ?? new Map() });

async function main(): Promise<void> {
  const { quick } = benchArgs();
  const datasets = new Map<SetName, Dataset>();
  for (const name of SETS) datasets.set(name, await loadDataset(name));
  const cells: Cell[] = [];
  for (const [i, name] of SETS.entries()) {
    const dataset = datasets.get(name)!;
    // review-anchored: the anchored-code field and anchor places as the product builds them (product-kb.ts).
    const set = name === "review-anchored" ? pipelineSet(dataset, { anchoredCode: true, product: await productAnchoring(dataset) }) : pipelineSet(dataset);
    let queries = judgedHeadline(dataset);
    if (quick) queries = queries.slice(0, 200);
    // Off-topic: the next set's queries against this set's entries.
    const other = datasets.get(SETS[(i + 1) % SETS.length]!)!;
    const offQueries = judgedHeadline(other).slice(0, quick ? 50 : OFF_TOPIC);
    const index = buildIndex(set);
    for (const style of STYLES) {
      log(`${name} (${style}): ${queries.length} queries, with and without their relevant documents`);
      const probes = queries.map((q) => ({ id: q.id, probe: probeOf(dataset, q, style), relevant: new Set([...(dataset.qrels.get(q.id) ?? [])].filter(([, g]) => g > 0).map(([id]) => id)) }));
      const { withRelevant, withoutRelevant } = collectBothWays(set, probes, DEPTH);
      const offTopic = offQueries.map((q) => collect(index, set, probeOf(other, q, style), DEPTH));
      cells.push({
        set: name,
        style,
        tune: queries.filter((q) => queryParity(q) === "odd").map((q) => judgedOf(dataset, q)),
        heldOut: queries.filter((q) => queryParity(q) === "even").map((q) => judgedOf(dataset, q)),
        withRelevant,
        withoutRelevant,
        offTopic,
      });
    }
  }

  log("floor sweep");
  const grid = floorGrid();
  const sweep = grid.map((setting) => {
    const tune = cells.map((c) => floorOutcome(c.tune, c.withRelevant, c.withoutRelevant, setting));
    const offCut = cells.reduce((s, c) => s + 1 - offTopicInjected(c.offTopic, setting) / 5, 0) / cells.length;
    return { setting, minKept: Math.min(...tune.map(kept)), meanCut: tune.reduce((s, o) => s + cut(o), 0) / tune.length, offCut, tune };
  });
  // Both kinds of "nothing relevant" count alike: a sibling of the relevant entry, and a review about something else.
  const qualifying = sweep.filter((r) => r.minKept >= KEEP_GOAL).sort((a, b) => b.meanCut + b.offCut - (a.meanCut + a.offCut) || b.minKept - a.minKept);
  // When no setting keeps enough everywhere, the one that keeps the most where it keeps least.
  const fallback = [...sweep].sort((a, b) => b.minKept - a.minKept || b.meanCut + b.offCut - (a.meanCut + a.offCut));
  const chosen = (qualifying[0] ?? fallback[0])?.setting;
  const d = DEFAULT_FUSION;
  const defaults: FloorSetting = { evidenceFloor: d.evidenceFloor, lexicalFloor: d.lexicalFloor, relativeFloor: d.relativeFloor, shortQueryWords: d.shortQueryWords };
  console.log(`\nfloor choice (keep ≥ ${KEEP_GOAL * 100}% of Hit@5 on every tuning half, then the most cut when nothing is relevant or the query is off-topic): ${chosen ? settingName(chosen) : "none"}; DEFAULT_FUSION: ${settingName(defaults)}`);

  // What each floor keeps and cuts, held-out halves.
  const floors: Array<{ name: string; setting: FloorSetting | null }> = [
    { name: "no floor", setting: null },
    { name: `before (${settingName(PREVIOUS_FLOOR)})`, setting: PREVIOUS_FLOOR },
    { name: `**now** (${settingName(defaults)})`, setting: defaults },
  ];
  const noFloor: FloorSetting = { evidenceFloor: 0, lexicalFloor: 0, relativeFloor: 0 };
  const rows: Array<Record<string, string>> = [];
  const outcomes: Array<{ set: string; style: string; floor: string; heldOut: FloorOutcome; tune: FloorOutcome; offTopic: number }> = [];
  for (const c of cells) {
    for (const f of floors) {
      const setting = f.setting ?? noFloor;
      const heldOut = floorOutcome(c.heldOut, c.withRelevant, c.withoutRelevant, setting, f.setting !== null);
      const tune = floorOutcome(c.tune, c.withRelevant, c.withoutRelevant, setting, f.setting !== null);
      const off = f.setting ? offTopicInjected(c.offTopic, setting) : Math.min(5, ...[5]);
      outcomes.push({ set: c.set, style: c.style, floor: f.name, heldOut, tune, offTopic: off });
      rows.push({
        set: `${c.set} (${c.style})`,
        floor: f.name,
        "Hit@5 (kept)": `${f3(heldOut.hit5)} (${pct(kept(heldOut))})`,
        "Recall@5 (kept)": `${f3(heldOut.recall5)} (${pct(heldOut.recall5Unfloored > 0 ? heldOut.recall5 / heldOut.recall5Unfloored : 1)})`,
        "injected / query": heldOut.injected.toFixed(2),
        "nothing relevant: injected (cut)": `${heldOut.noRelevantInjected.toFixed(2)} (${pct(cut(heldOut))})`,
        "off-topic: injected": off.toFixed(2),
      });
    }
  }
  const floorTable = [
    "| set (queries) | floor | Hit@5 (kept) | Recall@5 (kept) | injected / query | nothing relevant: injected (cut) | off-topic query: injected |",
    "|---|---|---|---|---|---|---|",
    ...rows.map((r) => `| ${r["set"]} | ${r["floor"]} | ${r["Hit@5 (kept)"]} | ${r["Recall@5 (kept)"]} | ${r["injected / query"]} | ${r["nothing relevant: injected (cut)"]} | ${r["off-topic: injected"]} |`),
  ].join("\n");
  console.log(`\n${floorTable}`);

  // The frontier: over the whole grid, the most a floor can cut while keeping 98%, and the most it keeps while cutting 50%.
  const frontier = cells.map((c, i) => {
    const per = sweep.map((r) => r.tune[i]!);
    const atKeep = per.filter((o) => kept(o) >= KEEP_GOAL).sort((a, b) => cut(b) - cut(a))[0];
    const atCut = per.filter((o) => cut(o) >= CUT_GOAL).sort((a, b) => kept(b) - kept(a))[0];
    return `| ${c.set} (${c.style}) | ${atKeep ? pct(cut(atKeep)) : "—"} | ${atCut ? pct(kept(atCut)) : "no setting cuts 50%"} |`;
  });
  const frontierTable = [
    `| set (queries), tuning half | most cut at ≥ ${KEEP_GOAL * 100}% of Hit@5 kept | most Hit@5 kept at ≥ ${CUT_GOAL * 100}% cut |`,
    "|---|---|---|",
    ...frontier,
  ].join("\n");
  console.log(`\n${frontierTable}`);

  const now = outcomes.filter((o) => o.floor.startsWith("**now**"));
  const goals: GoalRow[] = [
    ...now.map((o) => ({
      metric: `floor keeps Hit@5: ${o.set} (${o.style}), held-out`,
      goal: `≥ ${KEEP_GOAL * 100}% of unfloored`,
      measured: `${pct(kept(o.heldOut))} (${f3(o.heldOut.hit5)} of ${f3(o.heldOut.hit5Unfloored)})`,
      baseline: `before: ${pct(kept(outcomes.find((x) => x.set === o.set && x.style === o.style && x.floor.startsWith("before"))!.heldOut))}`,
      pass: kept(o.heldOut) >= KEEP_GOAL,
    })),
    ...now.map((o) => ({
      metric: `floor cuts when nothing is relevant: ${o.set} (${o.style}), held-out`,
      goal: `≥ ${CUT_GOAL * 100}% of 5`,
      measured: `${pct(cut(o.heldOut))} (${o.heldOut.noRelevantInjected.toFixed(2)} injected)`,
      baseline: `off-topic queries: ${o.offTopic.toFixed(2)} injected`,
      pass: cut(o.heldOut) >= CUT_GOAL,
    })),
  ];
  const file = await writeResults("retrieval-floor", goals, {
    quick,
    defaults: defaults,
    chosen,
    rule: `keep ≥ ${KEEP_GOAL} of Hit@5 on every tuning half (odd ids) of every set and query style; then the largest mean cut (nothing relevant + off-topic)`,
    outcomes,
    sweepTop: (qualifying.length ? qualifying : fallback).slice(0, 10).map((r) => ({ setting: settingName(r.setting), minKept: r.minKept, meanCut: r.meanCut, offTopicCut: r.offCut })),
    tables: { floor: floorTable, frontier: frontierTable },
  });
  log(`wrote ${file}`);
}

await main();
