/**
 * HNSW vector store benchmark: recall@10 of the graph walk against the exact scan, build time,
 * query latency (p50/p95) and process RSS, on 512-dim vectors (the default embedder's size).
 *
 * Two data sets: `random` (isotropic Gaussian, normalised: the worst case for any ANN index, as
 * every point is almost equidistant) and `clustered` (a 64-dim latent mixture of 100 topics
 * projected to 512 dims plus noise; top-10 cosine ~0.6, random pairs ~0: closer to real sentence
 * embeddings). Latency is reported next to the exact scan measured in the same run.
 *
 * The random 100k set runs in a child process (its own RSS; the second core) while this process
 * does the rest. Run: npx tsx bench/hnsw.ts [--quick]   (--quick: 10k only)
 * Writes bench/results/hnsw.json.
 */
import { spawn } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import v8 from "node:v8";
import vm from "node:vm";
import type { HierarchicalNSW } from "hnswlib-node";
import { VECTOR_DEFAULTS, VectorStore, type VectorStoreOptions } from "../src/indexing/vectors.js";

const DIMS = 512;
const K = 10;
const QUERIES = 100;
const quick = process.argv.includes("--quick");
const here = path.dirname(fileURLToPath(import.meta.url));

v8.setFlagsFromString("--expose-gc");
const gc = vm.runInNewContext("gc") as () => void;

type Dataset = "random" | "clustered";

/** Seeded PRNG (mulberry32). */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A deterministic stream of vectors; the store normalises them. */
function generator(kind: Dataset, seed: number): () => Float32Array {
  const next = rng(seed);
  const gauss = () => Math.sqrt(-2 * Math.log(1 - next())) * Math.cos(2 * Math.PI * next());
  if (kind === "random") return () => Float32Array.from({ length: DIMS }, gauss);
  const latent = 64;
  const topics = 100;
  const model = rng(12345); // the same topics and projection for data and queries
  const g = () => Math.sqrt(-2 * Math.log(1 - model())) * Math.cos(2 * Math.PI * model());
  const projection = Array.from({ length: DIMS }, () => Float64Array.from({ length: latent }, g));
  const centres = Array.from({ length: topics }, () => Float64Array.from({ length: latent }, g));
  const noise = 0.5 * Math.sqrt(latent * 1.25); // per-dimension noise at half the signal's spread
  return () => {
    const centre = centres[Math.floor(next() * topics)]!;
    const z = centre.map((x) => x + 0.5 * gauss());
    const v = new Float32Array(DIMS);
    for (let i = 0; i < DIMS; i++) {
      const row = projection[i]!;
      let s = 0;
      for (let j = 0; j < latent; j++) s += row[j]! * z[j]!;
      v[i] = s + noise * gauss();
    }
    return v;
  };
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
}

const round = (x: number, digits = 3) => Number(x.toFixed(digits));
const cpuSeconds = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1e6;
};
const mb = (bytes: number) => Math.round(bytes / 2 ** 20);

type Timing = { p50: number; p95: number };
function timeEach<T>(items: T[], run: (item: T) => void): Timing {
  const times = items.map((item) => {
    const start = performance.now();
    run(item);
    return performance.now() - start;
  }).sort((a, b) => a - b);
  return { p50: round(percentile(times, 0.5)), p95: round(percentile(times, 0.95)) };
}

function recall(results: string[][], truth: string[][]): number {
  let found = 0;
  let total = 0;
  results.forEach((ids, i) => {
    const want = new Set(truth[i]);
    total += want.size;
    for (const id of ids) if (want.has(id)) found++;
  });
  return round(found / total, 4);
}

async function build(kind: Dataset, n: number, options: VectorStoreOptions, checkpoint?: (store: VectorStore) => void) {
  const next = generator(kind, 1);
  const store = await VectorStore.create(DIMS, { ...options, exactBelow: 0 });
  const marks = new Set([500, 1000, 2000, 5000, n]);
  let buildMs = 0;
  let cpuMicros = 0;
  for (let i = 0; i < n; i++) {
    const v = next();
    const start = performance.now();
    const cpu = process.cpuUsage();
    store.upsert(`v${i}`, v);
    const used = process.cpuUsage(cpu);
    cpuMicros += used.user + used.system;
    buildMs += performance.now() - start;
    if (checkpoint && marks.has(i + 1)) checkpoint(store);
  }
  return { store, buildMs, buildCpuMs: cpuMicros / 1000 };
}

/** Graph search at several efSearch values against exact truth. */
function sweep(store: VectorStore, queries: Float32Array[], truth: string[][], efs: number[]) {
  return efs.map((ef) => {
    store.efSearch = ef;
    const ids: string[][] = [];
    const timing = timeEach(queries, (q) => ids.push(store.search(q, K).map((h) => h.id)));
    return { efSearch: ef, recall: recall(ids, truth), ...timing };
  });
}

const rows: string[] = [];
const table = (title: string, header: string[], body: (string | number)[][]) => {
  rows.push(`\n### ${title}\n`, `| ${header.join(" | ")} |`, `|${header.map(() => " --- ").join("|")}|`);
  for (const line of body) rows.push(`| ${line.join(" | ")} |`);
  console.log(rows.splice(0).join("\n"));
};

const startedAt = Date.now();
const results: Record<string, unknown> = {
  machine: { cpus: os.cpus().length, node: process.version, loadavgAtStart: os.loadavg().map((x) => round(x, 2)) },
  dims: DIMS,
  k: K,
  queries: QUERIES,
  defaults: VECTOR_DEFAULTS,
};

/** efSearch values swept per data set (random data needs a far wider beam). */
const efsFor: Record<Dataset, number[]> = { clustered: [16, 32, 64, 128, 256], random: [16, 64, 256, 1024] };

/** 100k vectors with the defaults in this process: recall, latency, memory, and for clustered data persistence and filters. */
async function hundredK(kind: Dataset): Promise<Record<string, unknown>> {
  gc();
  const rssBefore = process.memoryUsage().rss;
  const { store, buildMs, buildCpuMs } = await build(kind, 100_000, {});
  gc();
  const memory = process.memoryUsage();
  const queries = Array.from({ length: QUERIES }, generator(kind, 99));
  const truth: string[][] = [];
  const scan = timeEach(queries, (q) => truth.push(store.exact(q, K).map((h) => h.id)));
  const points = sweep(store, queries, truth, efsFor[kind]);
  store.efSearch = VECTOR_DEFAULTS.efSearch;
  const row: Record<string, unknown> = {
    dataset: kind,
    buildSeconds: round(buildMs / 1000, 1),
    buildCpuSeconds: round(buildCpuMs / 1000, 1),
    buildMsPerVector: round(buildMs / 100_000),
    rssMB: mb(memory.rss),
    rssBeforeBuildMB: mb(rssBefore),
    peakRssMB: Math.round(process.resourceUsage().maxRSS / 1024),
    scanP50: scan.p50,
    scanP95: scan.p95,
    sweep: points,
  };
  table(`100k ${kind}, defaults: build ${row.buildSeconds} s (${row.buildCpuSeconds} s CPU), RSS ${row.rssMB} MB (${row.rssBeforeBuildMB} MB before, peak ${row.peakRssMB} MB); exact scan p50 ${scan.p50} ms`,
    ["efSearch", "recall@10", "p50 ms", "p95 ms", "p50 vs scan"],
    points.map((p) => [p.efSearch, p.recall, p.p50, p.p95, round(p.p50 / scan.p50, 3)]));
  if (kind === "clustered") {
    row.persistence = await persistence(store);
    row.filters = filters(store, queries);
  }
  return row;
}

/**
 * Runs `hundredK(kind)` in a child process (this script with --phase), so that its RSS is its own
 * and it uses the second core while this process carries on; resolves with its row and output.
 */
function hundredKApart(kind: Dataset): Promise<{ row: Record<string, unknown>; output: string }> {
  return new Promise((resolve, reject) => {
    const out = path.join(os.tmpdir(), `cairn-bench-hnsw-${process.pid}-${kind}.json`);
    const args = [...process.execArgv, fileURLToPath(import.meta.url), `--phase=${kind}`, `--out=${out}`];
    const child = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "inherit"] });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.once("error", reject);
    child.once("exit", async (code) => {
      if (code !== 0) return reject(new Error(`bench phase ${kind} exited with ${code}`));
      try {
        const row = JSON.parse(await readFile(out, "utf8")) as Record<string, unknown>;
        await rm(out, { force: true });
        resolve({ row, output });
      } catch (error) {
        reject(error);
      }
    });
  });
}

const phase = process.argv.find((a) => a.startsWith("--phase="))?.slice("--phase=".length) as Dataset | undefined;
if (phase) {
  const out = process.argv.find((a) => a.startsWith("--out="))!.slice("--out=".length);
  const row = await hundredK(phase);
  await writeFile(out, JSON.stringify({ ...row, processCpuSeconds: round(cpuSeconds(), 1) }));
  process.exit(0); // a bench script, not library code: the child's only job is done
}

// 1. 100k with the defaults: clustered here (first, so RSS is a fresh process's), random in a child meanwhile.
const apart = quick ? undefined : hundredKApart("random");
apart?.catch(() => undefined); // awaited below; avoid an unhandled rejection meanwhile
const at100k: Record<string, unknown>[] = [];
if (!quick) at100k.push(await hundredK("clustered"));

// 2. Exact scan vs graph walk as the store grows (clustered, defaults): where to switch.
{
  const queries = Array.from({ length: QUERIES }, generator("clustered", 99));
  const crossover: Record<string, number>[] = [];
  await build("clustered", 10_000, {}, (store) => {
    const truth: string[][] = [];
    const scan = timeEach(queries, (q) => truth.push(store.exact(q, K).map((h) => h.id)));
    const ids: string[][] = [];
    const walk = timeEach(queries, (q) => ids.push(store.search(q, K).map((h) => h.id)));
    crossover.push({ size: store.size, scanP50: scan.p50, graphP50: walk.p50, graphOverScan: round(walk.p50 / scan.p50, 2), graphRecall: recall(ids, truth) });
  });
  results.crossover = crossover;
  table("Exact scan vs graph walk (clustered, defaults; ms per query)", ["vectors", "scan p50", "graph p50", "graph/scan", "graph recall@10"],
    crossover.map((r) => [r.size!, r.scanP50!, r.graphP50!, r.graphOverScan!, r.graphRecall!]));
}

// 3. Build parameters at 10k on both data sets (clustered data reaches recall 1 with any of them,
// so the grid there only prices efConstruction; random data shows what a larger M buys).
const grids: Record<Dataset, { m: number; efConstruction: number }[]> = {
  clustered: [
    { m: 16, efConstruction: 100 },
    { m: 16, efConstruction: 200 },
  ],
  random: [
    { m: 16, efConstruction: 100 },
    { m: 32, efConstruction: 200 },
  ],
};
const at10k: Record<string, unknown>[] = [];
for (const kind of ["clustered", "random"] as const) {
  const queries = Array.from({ length: QUERIES }, generator(kind, 99));
  for (const params of grids[kind]) {
    const { store, buildMs, buildCpuMs } = await build(kind, 10_000, params);
    const truth: string[][] = [];
    const scan = timeEach(queries, (q) => truth.push(store.exact(q, K).map((h) => h.id)));
    const points = sweep(store, queries, truth, efsFor[kind]);
    at10k.push({
      dataset: kind,
      ...params,
      buildMsPerVector: round(buildMs / 10_000),
      buildCpuMsPerVector: round(buildCpuMs / 10_000),
      scanP50: scan.p50,
      sweep: points,
    });
    table(`10k ${kind}, M=${params.m} efConstruction=${params.efConstruction}: build ${round(buildMs / 1000, 1)} s (${round(buildCpuMs / 1000, 1)} s CPU); exact scan p50 ${scan.p50} ms`,
      ["efSearch", "recall@10", "p50 ms", "p95 ms", "p50 vs scan"],
      points.map((p) => [p.efSearch, p.recall, p.p50, p.p95, round(p.p50 / scan.p50, 3)]));
  }
}
results.at10k = at10k;

if (apart) {
  const { row, output } = await apart;
  console.log(output.trimEnd());
  at100k.push(row);
  results.at100k = at100k;
}

results.totalSeconds = round((Date.now() - startedAt) / 1000, 1);
results.totalCpuSeconds = round(cpuSeconds() + (at100k.find((r) => r.dataset === "random")?.processCpuSeconds as number | undefined ?? 0), 1);
results.loadavgAtEnd = os.loadavg().map((x) => round(x, 2));
await mkdir(path.join(here, "results"), { recursive: true });
await writeFile(path.join(here, "results/hnsw.json"), `${JSON.stringify(results, null, 2)}\n`);
console.log(`\nTotal ${results.totalSeconds} s wall, ${results.totalCpuSeconds} s CPU; wrote bench/results/hnsw.json`);

async function persistence(store: VectorStore) {
  const dir = await mkdtemp(path.join(os.tmpdir(), "cairn-bench-hnsw-"));
  try {
    let start = performance.now();
    await store.save(dir);
    const saveMs = performance.now() - start;
    start = performance.now();
    const loaded = await VectorStore.load(dir);
    const loadMs = performance.now() - start;
    const out = { saveSeconds: round(saveMs / 1000, 2), loadSeconds: round(loadMs / 1000, 2), loadedSize: loaded.size };
    table("Persistence at 100k clustered", ["save s", "load s (checksums + graph)"], [[out.saveSeconds, out.loadSeconds]]);
    return out;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * Filtered top-10 ("active entries only") at several shares of passing ids: the exact scan of the
 * passing ids, hnswlib's own filtered walk (a JS callback per visited node; the store does not use
 * it, so it is reached through the store's private fields), and what `search` does.
 */
function filters(store: VectorStore, queries: Float32Array[]) {
  const internals = store as unknown as { index: HierarchicalNSW; labels: (string | null)[] };
  const ids = store.ids();
  const out: Record<string, number>[] = [];
  for (const share of [0.001, 0.01, 0.03, 0.05, 0.1, 0.5]) {
    const pick = rng(7);
    const allowed = new Set(ids.filter(() => pick() < share));
    const filter = (id: string) => allowed.has(id);
    const truth: string[][] = [];
    const scan = timeEach(queries, (q) => truth.push(store.exact(q, K, filter).map((h) => h.id)));
    const native: string[][] = [];
    const walk = timeEach(queries, (q) => {
      const found = internals.index.searchKnn(Array.from(q), K, (label) => allowed.has(internals.labels[label] ?? ""));
      native.push(found.neighbors.map((label) => internals.labels[label]!));
    });
    const auto: string[][] = [];
    const searched = timeEach(queries, (q) => auto.push(store.search(q, K, filter).map((h) => h.id)));
    out.push({
      share,
      allowed: allowed.size,
      scanP50: scan.p50,
      hnswlibFilterP50: walk.p50,
      hnswlibFilterRecall: recall(native, truth),
      searchP50: searched.p50,
      searchP95: searched.p95,
      searchRecall: recall(auto, truth),
    });
  }
  table("Filtered search at 100k clustered (ms per query)",
    ["share passing", "ids", "exact scan p50", "hnswlib filter p50", "hnswlib filter recall", "search() p50", "search() p95", "search() recall"],
    out.map((r) => [r.share!, r.allowed!, r.scanP50!, r.hnswlibFilterP50!, r.hnswlibFilterRecall!, r.searchP50!, r.searchP95!, r.searchRecall!]));
  return out;
}
