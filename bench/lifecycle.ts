/**
 * Lifecycle speed: warm `inject` at 10k entries (distinct run ids so the per-run cap never empties
 * the result) against a bare `search` of the same query; `record` of 50 findings against 50 × the bare
 * search p50 and one full load of the entries; cold `cairn inject` process start to output on a
 * bundled-size knowledge base (this repository's own knowledge/, with its index built) against
 * `node -e ""` measured in the same run. Entry vectors at 10k are the real model's vectors of 1k
 * distinct texts reused cyclically (from bench/index.ts's cache when present); queries are embedded
 * by the real model. Run: npx tsx bench/lifecycle.ts [--quick]
 */
import { cp, mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { openKnowledgeBase, type KnowledgeBase } from "../src/index.js";
import type { Embedder } from "../src/indexing/embedder.js";
import { fakeEmbedder } from "../test/helpers/fake-embedder.js";
import { benchArgs, log } from "./lib/args.js";
import { cliIn } from "./lib/cli-path.js";
import { generateQueries, writeCorpus } from "./lib/corpus.js";
import { indexDocuments } from "./lib/documents.js";
import { failingEmbedder, loadDefaultEmbedder, precomputedEmbedder, readVectorCache, type Precomputed } from "./lib/embedder.js";
import { runProcess } from "./lib/process.js";
import { fmt, goalTable, table, writeResults, type GoalRow } from "./lib/report.js";
import { peakRssMb } from "./lib/rss.js";
import { median, summarize, type Summary } from "./lib/stats.js";
import { timed } from "./lib/timing.js";

const { quick } = benchArgs();
const LARGE = quick ? 2_000 : 10_000;
/** Distinct embedded texts; equals bench/index.ts's small corpus so its vector cache is reused. */
const DISTINCT = quick ? 200 : 1_000;
/** Texts embedded here when the cache is missing (embedding DISTINCT texts would take minutes). */
const FALLBACK_DISTINCT = quick ? 50 : 200;
const INJECTS = quick ? 10 : 30;
const FINDINGS = 50;
const COLD_RUNS = quick ? 3 : 5;
const GOAL_INJECT_P50_MS = 20;
const GOAL_COLD_INJECT_MS = 1_500;
const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const CLI = cliIn(path.join(REPO, "dist"));

type Injects = { inject: Summary; search: Summary; meanEntries: number };

/** Time `kb.inject` (distinct run per call) and a bare `kb.search` of the same query, interleaved. */
async function measureInjects(kb: KnowledgeBase, tag: string): Promise<Injects> {
  const queries = generateQueries(INJECTS + 3, 7);
  const inject: number[] = [];
  const search: number[] = [];
  let entries = 0;
  for (const [i, q] of queries.entries()) {
    let t0 = performance.now();
    const result = await kb.inject({ run: `bench-${tag}-${i}`, agent: q.agent, keywords: q.keywords, summary: q.summary });
    const injectMs = performance.now() - t0;
    t0 = performance.now();
    await kb.search(q.query, { agent: q.agent });
    const searchMs = performance.now() - t0;
    if (i < 3) continue; // warm-up
    inject.push(injectMs);
    search.push(searchMs);
    entries += result.entries.length;
  }
  return { inject: summarize(inject), search: summarize(search), meanEntries: entries / INJECTS };
}

/** Entry vectors for the large corpus: real vectors of the first DISTINCT entries' texts, the rest reuse them (by hash). */
async function largeEmbedder(root: string, firstPaths: Set<string>): Promise<{ embedder: Embedder; note: string; real?: Embedder; precomputed?: Precomputed }> {
  const loaded = await loadDefaultEmbedder(root);
  if (loaded.kind === "unavailable") return { embedder: fakeEmbedder(512), note: `fake embedder (${loaded.reason})` };
  const baseTexts = (await indexDocuments(root, firstPaths)).map((d) => d.embedText);
  let table = await readVectorCache(loaded.embedder, baseTexts);
  let note = `real vectors of ${baseTexts.length} distinct texts (bench/index.ts cache), reused cyclically`;
  if (!table) {
    const some = baseTexts.slice(0, FALLBACK_DISTINCT);
    log(`no vector cache from bench/index.ts; embedding ${some.length} texts`);
    const vectors = await loaded.embedder.embed(some);
    table = new Map(some.map((t, i) => [t, vectors[i]!]));
    note = `real vectors of ${some.length} distinct texts, reused cyclically (run bench/index.ts first for ${DISTINCT})`;
  }
  const precomputed = precomputedEmbedder(loaded.embedder, table);
  return { embedder: precomputed, note, real: loaded.embedder, precomputed };
}

/** Findings for `record`: half restate existing entries (matches), half are new. */
function findings(entries: ReadonlyArray<{ agent: string; finding: string }>): Array<{ agent: string; text: string }> {
  const out: Array<{ agent: string; text: string }> = [];
  for (let i = 0; i < FINDINGS; i++) {
    const e = entries[(i * 131) % entries.length]!;
    out.push(i % 2 === 0 ? { agent: e.agent, text: `${e.finding} Seen again in this change.` } : { agent: e.agent, text: `The widget${i} renderer recomputes layout for hidden panels on every scroll event; throttle it.` });
  }
  return out;
}

/** Copy this repository's knowledge/ (without its ledger) and src/ (what the anchors point at) to a temp root. */
async function bundledRoot(config?: object): Promise<{ root: string; entries: number }> {
  const root = await mkdtemp(path.join(os.tmpdir(), "cairn-bench-bundled-"));
  await cp(path.join(REPO, "knowledge"), path.join(root, "knowledge"), { recursive: true, filter: (src) => !src.includes(`${path.sep}.ledger`) });
  await cp(path.join(REPO, "src"), path.join(root, "src"), { recursive: true });
  if (config) await writeFile(path.join(root, "cairn.config.json"), JSON.stringify(config));
  const entries = (await readdir(path.join(root, "knowledge"))).filter((f) => f.endsWith(".md")).length;
  return { root, entries };
}

async function coldInject(roots: Array<{ name: string; root: string }>): Promise<{ node: number[]; runs: Record<string, number[]>; bytes: Record<string, number> }> {
  for (const { name, root } of roots) {
    const built = await runProcess(process.execPath, [CLI, "index", "--root", root]);
    if (built.code !== 0) throw new Error(`cairn index (${name}) exited ${built.code}: ${built.stderr.slice(0, 400)}`);
  }
  const node: number[] = [];
  const runs: Record<string, number[]> = {};
  const bytes: Record<string, number> = {};
  for (let i = 0; i < COLD_RUNS; i++) {
    node.push((await runProcess(process.execPath, ["-e", ""])).ms);
    for (const { name, root } of roots) {
      const args = [CLI, "inject", "--root", root, "--run", `cold-${i}`, "--agent", "correctness", "--keywords", "entries,ledger,archive", "--summary", "This change edits how entries are archived and how ledger lines are appended."];
      const run = await runProcess(process.execPath, args);
      if (run.code !== 0) throw new Error(`cairn inject (${name}) exited ${run.code}: ${run.stderr.slice(0, 400)}`);
      (runs[name] ??= []).push(run.ms);
      bytes[name] = run.stdout.length;
    }
  }
  return { node, runs, bytes };
}

async function main(): Promise<void> {
  const started = Date.now();
  const dirs: string[] = [];
  try {
    const large = await mkdtemp(path.join(os.tmpdir(), "cairn-bench-lifecycle-"));
    dirs.push(large);
    log(`generating ${LARGE} entries in ${large}`);
    const corpus = await writeCorpus(large, { entries: LARGE });
    const vectors = await largeEmbedder(large, new Set(corpus.entries.slice(0, DISTINCT).map((e) => e.rel)));
    log(`indexing ${LARGE} entries (${vectors.note})`);
    const kb = await openKnowledgeBase({ root: large, embedder: vectors.embedder });
    const indexed = await timed(() => kb.index());
    if (vectors.precomputed) vectors.precomputed.mode = "query";

    // A warm process has the rule results of .cairn/lint.json (any earlier status, check or inject writes them).
    await kb.status();
    log(`inject × ${INJECTS} (default configuration)`);
    const hybrid = await measureInjects(kb, "hybrid");

    log(`record of ${FINDINGS} findings`);
    const batch = findings(corpus.entries);
    const load = await timed(() => kb.load());
    const record = await timed(() => kb.recordFindings("bench-record", batch));
    const confirmations = record.value.confirmations.length;

    log("inject (lexical-only: the same index opened with a query embedder that fails)");
    const kbLex = await openKnowledgeBase({ root: large, embedder: failingEmbedder(vectors.embedder) });
    const lexical = await measureInjects(kbLex, "lexical");
    if ((await kbLex.search("warm")).mode !== "lexical") throw new Error("lexical-only injects ran in hybrid mode");

    log(`cold \`cairn inject\` × ${COLD_RUNS} on the bundled knowledge base`);
    const bundled = await bundledRoot();
    const bundledLexical = await bundledRoot({ embedder: { provider: "none" } });
    dirs.push(bundled.root, bundledLexical.root);
    const cold = await coldInject([
      { name: "default", root: bundled.root },
      { name: "lexical", root: bundledLexical.root },
    ]);
    const nodeMs = median(cold.node);
    const coldMs = median(cold.runs.default!);
    const coldLexMs = median(cold.runs.lexical!);

    const label = vectors.real ? "" : " (fake embedder)";
    const goals: GoalRow[] = [
      { metric: `inject warm at ${LARGE}, default configuration (embedder weight 0: the query is not embedded)${label}`, goal: `p50 ≤ ${GOAL_INJECT_P50_MS} ms`, measured: `p50 ${fmt(hybrid.inject.p50)} ms, p95 ${fmt(hybrid.inject.p95)} ms`, baseline: `bare search p50 ${fmt(hybrid.search.p50)} ms (${fmt(hybrid.inject.p50 / hybrid.search.p50)}×)`, pass: vectors.real ? hybrid.inject.p50 <= GOAL_INJECT_P50_MS : null },
      { metric: `inject warm at ${LARGE}, an embedder that fails (lexical fallback)`, goal: "—", measured: `p50 ${fmt(lexical.inject.p50)} ms, p95 ${fmt(lexical.inject.p95)} ms`, baseline: `bare search p50 ${fmt(lexical.search.p50)} ms (${fmt(lexical.inject.p50 / lexical.search.p50)}×)`, pass: null },
      { metric: `record ${FINDINGS} findings at ${LARGE}${label}`, goal: "—", measured: `${fmt(record.ms / 1000)} s (${fmt(record.ms / FINDINGS)} ms/finding, ${confirmations} confirmations)`, baseline: `${FINDINGS} × bare search p50 = ${fmt((FINDINGS * hybrid.search.p50) / 1000)} s; one kb.load() ${fmt(load.ms / 1000)} s`, pass: null },
      { metric: `cold \`cairn inject\` process, ${bundled.entries} entries, index built`, goal: `≤ ${fmt(GOAL_COLD_INJECT_MS)} ms`, measured: `${fmt(coldMs)} ms`, baseline: `node -e "" ${fmt(nodeMs)} ms (${fmt(coldMs / nodeMs)}×); lexical-only ${fmt(coldLexMs)} ms`, pass: vectors.real ? coldMs <= GOAL_COLD_INJECT_MS : null },
    ];

    console.log(`\n## lifecycle — ${LARGE} generated entries${quick ? " (quick)" : ""}; ${vectors.note}\n`);
    console.log(goalTable(goals));
    console.log("\nLatency (ms):\n");
    const row = (name: string, s: Summary) => ({ variant: name, n: s.n, p50: s.p50, p95: s.p95, max: s.max });
    console.log(
      table([
        row("inject, hybrid", hybrid.inject),
        row("search, hybrid", hybrid.search),
        row("inject, lexical", lexical.inject),
        row("search, lexical", lexical.search),
        row('node -e "" process', summarize(cold.node)),
        row("cairn inject process (default embedder)", summarize(cold.runs.default!)),
        row("cairn inject process (lexical-only)", summarize(cold.runs.lexical!)),
      ]),
    );
    console.log(`\nMean entries per inject: hybrid ${fmt(hybrid.meanEntries)}, lexical ${fmt(lexical.meanEntries)}. Index of ${LARGE}: ${fmt(indexed.ms / 1000)} s. Peak RSS ${fmt(peakRssMb())} MB. Total ${fmt((Date.now() - started) / 1000)} s.`);
    console.log("Ledger projection over 100k events: see bench/ledger.ts (bench/results/ledger.json).");

    const file = await writeResults("lifecycle", goals, {
      quick,
      entries: LARGE,
      vectors: vectors.note,
      inject: { hybrid, lexical },
      record: { findings: FINDINGS, ms: record.ms, cpuMs: record.cpuMs, confirmations, unmatched: record.value.unmatched.length, bareSearchP50Ms: hybrid.search.p50, loadMs: load.ms },
      coldInject: { entries: bundled.entries, nodeStart: cold.node, default: cold.runs.default, lexical: cold.runs.lexical, outputBytes: cold.bytes },
      indexMs: indexed.ms,
      peakRssMb: peakRssMb(),
      totalSeconds: (Date.now() - started) / 1000,
    });
    log(`wrote ${path.relative(REPO, file)}`);
    await vectors.real?.close?.();
  } finally {
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  }
}

await main();
