/**
 * Lifecycle integrity (issue 7): a seeded simulation of review history with hidden truth, run through
 * the library API on real files, a real ledger and a real git repository (bench/lib/integrity/). The
 * matrix: seeds 1–5, p ∈ {0.2, 0.4}, q ∈ {0.3, 0.6}, 1, 4 and 40 runs a day, holdout off and at the
 * default; plus other holdout settings (1 run a day, q 0.6) for the trade-off table. Matching is
 * lexical (no embedding model): real embeddings would cost hours here and are measured elsewhere.
 * Each simulation is its own process; two run at once.
 *
 *   npm run bench -- integrity [--quick]      (--quick: seeds 1–2, 1 and 40 runs a day, no trade-off rows)
 *   npx tsx bench/integrity.ts --from-results  (recompute the tables from bench/results/integrity.json, no simulation)
 */
import { spawn } from "node:child_process";
import { readFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { DEFAULT_CONFIG } from "../src/config.js";
import { benchArgs, log } from "./lib/args.js";
import { goalRows, matrixTable, tradeoffTable, type SimResult } from "./lib/integrity/report.js";
import type { SimConfig } from "./lib/integrity/sim.js";
import { goalTable, RESULTS_DIR, table, writeResults } from "./lib/report.js";

const { quick } = benchArgs();
const HERE = path.dirname(fileURLToPath(import.meta.url));
const WORKER = path.join(HERE, "lib", "integrity", "worker.ts");
const DEFAULT_HOLDOUT = DEFAULT_CONFIG.holdout as number;
const SEEDS = quick ? [1, 2] : [1, 2, 3, 4, 5];
const PER_DAY = quick ? [1, 40] : [1, 4, 40];
const TRADEOFF = quick ? [] : [0.3, 0.5, 1.2];
const PARALLEL = Math.max(1, Math.min(2, os.cpus().length));

function jobs(): SimConfig[] {
  const out: SimConfig[] = [];
  for (const holdout of ["off", DEFAULT_HOLDOUT] as const) {
    for (const runsPerDay of PER_DAY) for (const p of [0.2, 0.4]) for (const q of [0.3, 0.6]) for (const seed of SEEDS) out.push({ seed, p, q, runsPerDay, holdout });
  }
  for (const holdout of TRADEOFF) for (const p of [0.2, 0.4]) for (const seed of SEEDS) out.push({ seed, p, q: 0.6, runsPerDay: 1, holdout });
  return out;
}

function runJob(config: SimConfig): Promise<SimResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", WORKER, JSON.stringify(config)], { cwd: path.join(HERE, ".."), stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.on("error", reject);
    child.on("close", (code) => {
      if (code !== 0) return reject(new Error(`simulation ${JSON.stringify(config)} failed (exit ${code}):\n${stderr}`));
      resolve(JSON.parse(stdout.trim().split("\n").at(-1)!) as SimResult);
    });
  });
}

async function runAll(list: SimConfig[]): Promise<SimResult[]> {
  const results: SimResult[] = [];
  let next = 0;
  const started = Date.now();
  const lane = async () => {
    while (next < list.length) {
      const config = list[next++]!;
      results.push(await runJob(config));
      if (results.length % 10 === 0 || results.length === list.length) {
        log(`${results.length}/${list.length} simulations (${((Date.now() - started) / 60_000).toFixed(1)} min)`);
      }
    }
  };
  await Promise.all(Array.from({ length: PARALLEL }, lane));
  return results;
}

const fromResults = process.argv.includes("--from-results");
const previous = fromResults ? (JSON.parse(await readFile(path.join(RESULTS_DIR, "integrity.json"), "utf8")) as { results: SimResult[]; quick: boolean }) : undefined;
const list = jobs();
if (!previous) log(`${list.length} simulations of 40 runs, ${PARALLEL} at a time`);
const results = previous ? previous.results : await runAll(list);
const goals = goalRows(results, DEFAULT_HOLDOUT, DEFAULT_CONFIG.decayAfterRuns);
const tradeoff = tradeoffTable(results);
const matrix = matrixTable(results);
console.log(goalTable(goals));
console.log(`\n${table(tradeoff)}\n\n${table(matrix)}`);
const ms = results.map((r) => r.ms).sort((a, b) => a - b);
await writeResults("integrity", goals, {
  quick: previous ? previous.quick : quick,
  simulations: results.length,
  medianSimulationMs: ms[Math.floor(ms.length / 2)],
  tables: { tradeoff, matrix },
  results,
});
