/**
 * Run the benches one after another, each as its own `npx tsx bench/<name>.ts` process (so one
 * bench's memory and JIT state never colour the next), then print a summary of bench/results/*.json.
 *
 *   npm run bench                      every bench/*.ts entry point
 *   npm run bench -- check index       only these (names without .ts)
 *   npm run bench -- --quick           smaller sizes (passed on as --quick and CAIRN_BENCH_QUICK=1)
 *   npm run bench -- --list            list the benches and exit
 *   npm run bench -- --summary         only print the summary of the existing results
 *   npm run bench -- retrieval-hybrid --embedder '{"provider":"transformers","path":"models/x"}'
 *                                      measure another embedder (passed on to the retrieval benches)
 *   npm run bench -- scale --base DIR  also time another build (retrieval-speed and scale read --base)
 */
import { readdir } from "node:fs/promises";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { spawn } from "node:child_process";
import { fmt, machine, RESULTS_DIR, table } from "./lib/report.js";
import { collectSummary, summaryTable } from "./lib/summary.js";
import { renderReadme } from "./lib/readme.js";
import { readFile, writeFile } from "node:fs/promises";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const REPO = path.join(HERE, "..");

type Outcome = { name: string; seconds: number; code: number | null };

async function benches(): Promise<string[]> {
  const files = await readdir(HERE);
  return files.filter((f) => f.endsWith(".ts") && f !== "run.ts" && !f.endsWith(".d.ts")).map((f) => f.slice(0, -3)).sort();
}

/** Flags with a value, passed on to every bench (each bench reads the ones it knows). */
const VALUE_FLAGS = ["--embedder", "--base"];

function runBench(name: string, quick: boolean, passOn: string[]): Promise<Outcome> {
  return new Promise((resolve) => {
    const t0 = performance.now();
    const args = ["tsx", path.join("bench", `${name}.ts`), ...(quick ? ["--quick"] : []), ...passOn];
    const child = spawn("npx", args, {
      cwd: REPO,
      stdio: "inherit",
      env: { ...process.env, ...(quick ? { CAIRN_BENCH_QUICK: "1" } : {}) },
    });
    child.on("error", (error) => {
      process.stderr.write(`could not start npx tsx bench/${name}.ts: ${error.message}\n`);
      resolve({ name, seconds: (performance.now() - t0) / 1000, code: null });
    });
    child.on("close", (code) => resolve({ name, seconds: (performance.now() - t0) / 1000, code }));
  });
}

async function main(): Promise<number> {
  const raw = process.argv.slice(2);
  const passOn: string[] = [];
  const argv: string[] = [];
  for (let i = 0; i < raw.length; i++) {
    if (VALUE_FLAGS.includes(raw[i]!) && raw[i + 1] !== undefined) passOn.push(raw[i]!, raw[++i]!);
    else argv.push(raw[i]!);
  }
  const quick = argv.includes("--quick");
  const all = await benches();
  if (argv.includes("--list")) {
    console.log(all.join("\n"));
    return 0;
  }
  const wanted = argv.filter((a) => !a.startsWith("--")).map((a) => a.replace(/^bench\//, "").replace(/\.ts$/, ""));
  const unknown = wanted.filter((w) => !all.includes(w));
  if (unknown.length) {
    process.stderr.write(`unknown bench ${unknown.map((u) => `"${u}"`).join(", ")}; expected one of: ${all.join(", ")}\n`);
    return 2;
  }
  const selected = argv.includes("--summary") ? [] : wanted.length ? all.filter((b) => wanted.includes(b)) : all;
  const since = Date.now();
  const info = machine();
  console.log(`# cairn benchmarks${quick ? " (quick)" : ""}\n\nnode ${info.node}, ${info.cpus} CPUs, load average ${info.loadavg.join(" / ")} at start; benches: ${selected.join(", ") || "(none)"}\n`);

  const outcomes: Outcome[] = [];
  for (const name of selected) {
    console.log(`\n---\n\n# bench/${name}.ts\n`);
    outcomes.push(await runBench(name, quick, passOn));
  }

  console.log("\n---\n\n# Summary\n");
  if (outcomes.length) {
    console.log(table(outcomes.map((o) => ({ bench: o.name, seconds: o.seconds, exit: o.code === 0 ? "ok" : `failed (${o.code ?? "not started"})` }))));
    console.log(`\nTotal ${fmt(outcomes.reduce((s, o) => s + o.seconds, 0) / 60)} min; load average at the end ${machine().loadavg.join(" / ")}.\n`);
  }
  const rows = await collectSummary(RESULTS_DIR, since, selected);
  console.log(rows.length ? summaryTable(rows) : "(no results in bench/results/)");
  // The README's tables are regenerated from the results, never edited by hand.
  const readmePath = path.join(REPO, "README.md");
  const readme = await readFile(readmePath, "utf8");
  const regenerated = await renderReadme(readme, RESULTS_DIR);
  if (regenerated !== readme) {
    await writeFile(readmePath, regenerated);
    console.log("\nREADME.md tables regenerated from bench/results/.");
  }
  const misses = rows.filter((r) => r.fresh && r.pass === false).length;
  if (misses) console.log(`\n${misses} goal(s) missed in this run (figures on a shared, noisy machine: compare the ratios).`);
  return outcomes.some((o) => o.code !== 0) ? 1 : 0;
}

process.exitCode = await main();
