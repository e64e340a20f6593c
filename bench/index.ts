/**
 * Index speed with the real default embedder: cold index of 1,000 entries against the embedder's raw
 * throughput on the same texts in the same batches (timed on every 4th batch (2nd with --quick) to save time, half
 * before and half after the index, so drift in the box's load cancels); edit → searchable through the watcher; warm query p50/p95 at 1k
 * and 10k entries (hybrid, query embedding included) against lexical-only and the bare query embedding.
 * At 10k the entry vectors are the real model's vectors of the 1k texts reused cyclically (embedding
 * 10k texts with the model does not fit the time budget); queries are embedded by the real model.
 * Run: npx tsx bench/index.ts [--quick]
 */
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { openKnowledgeBase } from "../src/index.js";

/** Vectors are indexed and ranked only with a vector weight above 0 (the default is 0): this bench measures that configuration. */
const RANKED = { embedder: { provider: "use-lite" as const, weight: 0.2 } };
import type { Embedder } from "../src/indexing/embedder.js";
import { fakeEmbedder } from "../test/helpers/fake-embedder.js";
import { benchArgs, log } from "./lib/args.js";
import { generateQueries, writeCorpus } from "./lib/corpus.js";
import { batches, indexDocuments } from "./lib/documents.js";
import { failingEmbedder, loadDefaultEmbedder, precomputedEmbedder, writeVectorCache } from "./lib/embedder.js";
import { fmt, goalTable, table, writeResults, type GoalRow } from "./lib/report.js";
import { peakRssMb, rssDuring } from "./lib/rss.js";
import type { Summary } from "./lib/stats.js";
import { timed } from "./lib/timing.js";
import { measureQueries, measureWatchEdits } from "./lib/search-latency.js";

const { quick } = benchArgs();
const SMALL = quick ? 200 : 1_000;
const LARGE = quick ? 2_000 : 10_000;
const QUERIES = quick ? 15 : 40;
const EDITS = quick ? 4 : 10;
/** Mirrors EMBED_BATCH in src/indexing/search-index.ts; the batches the index really sends are recorded and reported. */
const BATCH = 32;
/** The raw baseline embeds every RAW_EVERY-th batch (per-text cost is what is compared). */
const RAW_EVERY = quick ? 2 : 4;
const GOAL_OVERHEAD = 0.25;
const GOAL_WATCH_MS = 1_000;
const GOAL_QUERY_P50_MS = 20;
const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

type Recording = Embedder & { batchSizes: number[]; vectors: Map<string, Float32Array>; recording: boolean };

/** Passes calls through; while `recording`, keeps the batch sizes and the vectors it returned. */
function recording(inner: Embedder): Recording {
  const wrapper: Recording = {
    id: inner.id,
    dims: inner.dims,
    batchSizes: [],
    vectors: new Map(),
    recording: true,
    embed: async (texts) => {
      const out = await inner.embed(texts);
      if (wrapper.recording) {
        wrapper.batchSizes.push(texts.length);
        for (const [i, text] of texts.entries()) wrapper.vectors.set(text, out[i]!);
      }
      return out;
    },
  };
  return wrapper;
}

const ms = (s: Summary) => `p50 ${fmt(s.p50)} ms, p95 ${fmt(s.p95)} ms`;

async function main(): Promise<void> {
  const started = Date.now();
  const roots: string[] = [];
  const tmp = async (tag: string) => {
    const dir = await mkdtemp(path.join(os.tmpdir(), `cairn-bench-index-${tag}-`));
    roots.push(dir);
    return dir;
  };
  try {
    const small = await tmp("1k");
    log(`generating ${SMALL} entries in ${small}`);
    await writeCorpus(small, { entries: SMALL });
    const docs = await indexDocuments(small);
    const texts = docs.map((d) => d.embedText);

    log("loading the default embedder (use-lite) twice: one instance for the raw baseline, one for the index");
    const rawLoad = await loadDefaultEmbedder(small);
    const indexLoad = rawLoad.kind === "loaded" ? await loadDefaultEmbedder(small) : rawLoad;
    const real = rawLoad.kind === "loaded" && indexLoad.kind === "loaded" ? { raw: rawLoad.embedder, index: indexLoad.embedder, loadMs: rawLoad.loadMs } : undefined;
    const unavailable = rawLoad.kind === "unavailable" ? rawLoad.reason : indexLoad.kind === "unavailable" ? indexLoad.reason : "";
    if (!real) log(`real embedder unavailable: ${unavailable}; embedder figures are skipped, the rest uses the test fake embedder`);

    // 1. Cold index vs raw embedding of every RAW_EVERY-th batch (half of that sample before the index, half after).
    let cold: { ms: number; cpuMs: number; rawMs: number; rawCpuMs: number; rawTexts: number; batchSizes: number[]; embedded: number; rssGrowthMb: number } | undefined;
    const indexEmbedder = real ? recording(real.index) : fakeEmbedder(512);
    let vectors: Float32Array[] = [];
    if (real) {
      const sampled = batches(texts, BATCH).filter((_, i) => i % RAW_EVERY === 0);
      const half = Math.ceil(sampled.length / 2);
      const rawRun = async (part: string[][]) => timed(async () => {
        for (const batch of part) await real.raw.embed(batch);
      });
      log(`raw embedding, first half of the sample (${half} batches of ${BATCH})`);
      const rawA = await rawRun(sampled.slice(0, half));
      log(`cold index of ${SMALL} entries`);
      const kb = await openKnowledgeBase({ root: small, embedder: indexEmbedder, config: RANKED });
      const index = await rssDuring(() => timed(() => kb.index()));
      const recorder = indexEmbedder as Recording;
      recorder.recording = false;
      if (index.value.value.embedded !== SMALL) throw new Error(`cold index embedded ${index.value.value.embedded} texts, expected ${SMALL}`);
      log("raw embedding, second half of the sample");
      const rawB = await rawRun(sampled.slice(half));
      const rawTexts = sampled.flat().length;
      const scale = SMALL / rawTexts;
      cold = {
        ms: index.value.ms,
        cpuMs: index.value.cpuMs,
        rawMs: (rawA.ms + rawB.ms) * scale,
        rawCpuMs: (rawA.cpuMs + rawB.cpuMs) * scale,
        rawTexts,
        batchSizes: recorder.batchSizes,
        embedded: index.value.value.embedded,
        rssGrowthMb: index.growthMb,
      };
      vectors = texts.map((t) => recorder.vectors.get(t)!);
      if (vectors.some((v) => !v)) throw new Error("the index did not embed every entry text");
      await writeVectorCache(real.raw, new Map(texts.map((t, i) => [t, vectors[i]!])));
    } else {
      await (await openKnowledgeBase({ root: small, embedder: indexEmbedder, config: RANKED })).index();
    }

    // 2. Warm queries at 1k (hybrid) with the bare query embedding interleaved as a baseline.
    const queries = generateQueries(QUERIES).map((q) => q.query);
    const kbSmall = await openKnowledgeBase({ root: small, embedder: indexEmbedder, config: RANKED });
    log(`warm queries at ${SMALL} (hybrid)`);
    const hybridSmall = await measureQueries(kbSmall, queries, real?.raw);

    // 3. Edit → searchable through the watcher.
    log(`watcher: ${EDITS} edits`);
    const watch = await measureWatchEdits(kbSmall, docs.map((d) => ({ id: d.id, path: path.join(small, d.meta.path) })), EDITS);

    // 4. 10k: precomputed vectors (real model, 1k texts, reused cyclically); queries embedded for real.
    const large = await tmp("10k");
    log(`generating ${LARGE} entries in ${large}`);
    await writeCorpus(large, { entries: LARGE });
    // Its first SMALL entries are the small corpus (same seed): they get their own vectors, the rest reuse them.
    const largeEmbedder = real ? precomputedEmbedder(real.index, new Map(texts.map((t, i) => [t, vectors[i]!]))) : fakeEmbedder(512);
    log(`indexing ${LARGE} entries (${real ? "precomputed vectors" : "fake embedder"})`);
    const kbLarge = await openKnowledgeBase({ root: large, embedder: largeEmbedder, config: RANKED });
    const largeIndex = await rssDuring(() => timed(() => kbLarge.index()));
    if ("mode" in largeEmbedder) largeEmbedder.mode = "query";
    log(`warm queries at ${LARGE} (hybrid)`);
    const hybridLarge = await measureQueries(kbLarge, queries, real?.raw);

    // 5. Lexical-only: the same saved indexes opened with a query embedder that fails (no rebuild).
    log("lexical-only queries at both sizes");
    const lexSmall = await measureQueries(await openKnowledgeBase({ root: small, embedder: failingEmbedder(indexEmbedder), config: RANKED }), queries);
    const lexLarge = await measureQueries(await openKnowledgeBase({ root: large, embedder: failingEmbedder(largeEmbedder), config: RANKED }), queries);
    if (lexSmall.mode !== "lexical" || lexLarge.mode !== "lexical") throw new Error("lexical-only queries ran in hybrid mode");

    const skipped = `not measured: ${unavailable}`;
    const label = real ? "" : " (fake embedder)";
    const goals: GoalRow[] = [];
    if (cold) {
      const overhead = cold.ms / cold.rawMs - 1;
      const cpuOverhead = cold.cpuMs / cold.rawCpuMs - 1;
      goals.push(
        { metric: `cold index, ${SMALL} entries (model loaded)`, goal: "—", measured: `${fmt(cold.ms / 1000)} s, ${fmt((SMALL / cold.ms) * 1000)} entries/s`, baseline: `raw embed ${fmt(cold.rawMs / 1000)} s (${fmt((SMALL / cold.rawMs) * 1000)} texts/s, timed on ${cold.rawTexts} of the texts); model load ${fmt(real!.loadMs)} ms`, pass: null },
        { metric: "index overhead over raw embedding", goal: `≤ ${GOAL_OVERHEAD * 100}%`, measured: `${fmt(overhead * 100, 1)}% wall`, baseline: `${fmt(cpuOverhead * 100, 1)}% CPU time`, pass: overhead <= GOAL_OVERHEAD },
      );
    } else {
      goals.push({ metric: `cold index, ${SMALL} entries`, goal: `overhead ≤ ${GOAL_OVERHEAD * 100}%`, measured: skipped, pass: null });
    }
    goals.push(
      { metric: `edit → searchable via watcher (median of ${watch.samples.length})${label}`, goal: `≤ ${fmt(GOAL_WATCH_MS)} ms`, measured: `${fmt(watch.summary.p50)} ms (max ${fmt(watch.summary.max)}${watch.misses.length ? `; ${watch.misses.length} not searchable in 10 s` : ""})`, baseline: `refresh itself p50 ${fmt(watch.refresh.p50)} ms; debounce 150 ms`, pass: real && !watch.misses.length ? watch.summary.p50 <= GOAL_WATCH_MS : real ? false : null },
      { metric: `warm query at ${SMALL}, hybrid${label}`, goal: `p50 ≤ ${GOAL_QUERY_P50_MS} ms`, measured: ms(hybridSmall.search), baseline: hybridSmall.embed ? `query embedding alone ${ms(hybridSmall.embed)}` : "", pass: real ? hybridSmall.search.p50 <= GOAL_QUERY_P50_MS : null },
      { metric: `warm query at ${LARGE}, hybrid${real ? " (cyclic precomputed entry vectors)" : label}`, goal: `p50 ≤ ${GOAL_QUERY_P50_MS} ms`, measured: ms(hybridLarge.search), baseline: hybridLarge.embed ? `query embedding alone ${ms(hybridLarge.embed)}` : "", pass: real ? hybridLarge.search.p50 <= GOAL_QUERY_P50_MS : null },
      { metric: `warm query at ${SMALL}, lexical-only`, goal: "—", measured: ms(lexSmall.search), pass: null },
      { metric: `warm query at ${LARGE}, lexical-only`, goal: "—", measured: ms(lexLarge.search), pass: null },
      { metric: `index ${LARGE} entries, embedding excluded`, goal: "—", measured: `${fmt(largeIndex.value.ms / 1000)} s, ${fmt((LARGE / largeIndex.value.ms) * 1000)} entries/s`, baseline: `RSS +${fmt(largeIndex.growthMb)} MB`, pass: null },
    );

    console.log(`\n## index — ${SMALL} / ${LARGE} generated entries${quick ? " (quick)" : ""}${real ? `, embedder ${real.index.id}` : ""}\n`);
    console.log(goalTable(goals));
    console.log("\nQuery latency (ms):\n");
    const row = (name: string, s: Summary | undefined) => (s ? { variant: name, n: s.n, p50: s.p50, p95: s.p95, max: s.max } : { variant: name, n: 0, p50: Number.NaN, p95: Number.NaN, max: Number.NaN });
    console.log(
      table([
        row(`hybrid ${SMALL}`, hybridSmall.search),
        row(`hybrid ${LARGE}`, hybridLarge.search),
        row(`hybrid ${SMALL}, engine only (no refresh)`, hybridSmall.engine),
        row(`hybrid ${LARGE}, engine only (no refresh)`, hybridLarge.engine),
        row(`lexical ${SMALL}`, lexSmall.search),
        row(`lexical ${LARGE}`, lexLarge.search),
        row(`lexical ${SMALL}, engine only`, lexSmall.engine),
        row(`lexical ${LARGE}, engine only`, lexLarge.engine),
        ...(hybridSmall.embed ? [row("query embedding alone", hybridSmall.embed)] : []),
        row("watcher edit → searchable", watch.summary),
      ]),
    );
    if (cold) console.log(`\nBatches the index sent to the embedder: ${JSON.stringify(histogram(cold.batchSizes))} (raw baseline used ${BATCH}).`);
    console.log(`Peak RSS of this process: ${fmt(peakRssMb())} MB. Total ${fmt((Date.now() - started) / 1000)} s.`);

    const file = await writeResults("index", goals, {
      quick,
      sizes: { small: SMALL, large: LARGE, queries: QUERIES, edits: EDITS },
      embedder: real ? { id: real.index.id, dims: real.index.dims, loadMs: real.loadMs } : { unavailable },
      largeVectors: real ? "real model vectors of the small corpus' texts, reused cyclically" : "fake embedder",
      cold: cold ? { ...cold, overhead: cold.ms / cold.rawMs - 1, cpuOverhead: cold.cpuMs / cold.rawCpuMs - 1, batchSizes: histogram(cold.batchSizes) } : null,
      watch: { samples: watch.samples, summary: watch.summary, refresh: watch.refresh, misses: watch.misses },
      queries: {
        hybridSmall: hybridSmall.search,
        hybridLarge: hybridLarge.search,
        hybridSmallEngine: hybridSmall.engine,
        hybridLargeEngine: hybridLarge.engine,
        lexicalSmall: lexSmall.search,
        lexicalLarge: lexLarge.search,
        lexicalSmallEngine: lexSmall.engine,
        lexicalLargeEngine: lexLarge.engine,
        meanResults: { hybridSmall: hybridSmall.meanResults, hybridLarge: hybridLarge.meanResults, lexicalSmall: lexSmall.meanResults, lexicalLarge: lexLarge.meanResults },
        queryEmbed: hybridSmall.embed ?? null,
      },
      largeIndex: { ms: largeIndex.value.ms, cpuMs: largeIndex.value.cpuMs, rssGrowthMb: largeIndex.growthMb },
      peakRssMb: peakRssMb(),
      totalSeconds: (Date.now() - started) / 1000,
    });
    log(`wrote ${path.relative(REPO, file)}`);
    await real?.raw.close?.();
    await real?.index.close?.();
  } finally {
    for (const dir of roots) await rm(dir, { recursive: true, force: true });
  }
}

function histogram(sizes: number[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const s of sizes) out[s] = (out[s] ?? 0) + 1;
  return out;
}

await main();
