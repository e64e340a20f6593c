/**
 * `cairn verify` in CI: 1,000 entries with grep-like verify steps over a 10,000-file git repository,
 * as a real CLI process (`cairn verify --dry-run --json`, so every step runs and nothing is
 * recorded), plus the library call alone. Same-run baselines: `node -e ""` (process start) and
 * reading every tracked file once (the floor of any search over them). Steps: 60% a pattern still
 * present in a directory glob, 20% a pattern gone from a directory glob (every file in the glob is
 * scanned), 5% repo-wide patterns present, 3% repo-wide patterns gone (all 10k files scanned),
 * 12% prose steps (not mechanical). With `--base DIR` (a built package or its dist/, e.g. the base commit's
 * build made by bench/types.ts's recipe: git archive BASE | tar -x, link node_modules, tsc -p tsconfig.build.json)
 * the base build's CLI runs in the same loop, alternating, and must report the same results.
 * Run: npm run bench -- verify [--quick] [--base DIR]
 */
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { openKnowledgeBase } from "../src/index.js";
import { benchArgs, log } from "./lib/args.js";
import { cliIn } from "./lib/cli-path.js";
import { random } from "./lib/corpus.js";
import { runProcess } from "./lib/process.js";
import { fmt, goalTable, table, writeResults, type GoalRow } from "./lib/report.js";
import { median } from "./lib/stats.js";
import { timed } from "./lib/timing.js";

const { quick } = benchArgs();
const FILES = quick ? 2_000 : 10_000;
const ENTRIES = quick ? 200 : 1_000;
const DIRS = 100;
const RUNS = quick ? 2 : 5;
const GOAL_MS = 2_000;
const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const CLI = cliIn(path.join(REPO, "dist"));
const BASE_AT = process.argv.indexOf("--base");
const BASE_DIR = BASE_AT >= 0 ? path.resolve(process.argv[BASE_AT + 1] ?? "") : undefined;
const BASE_CLI = BASE_DIR ? [cliIn(BASE_DIR)].find((f) => existsSync(f)) : undefined;
const GIT_ENV = { ...process.env, GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1", GIT_AUTHOR_NAME: "b", GIT_AUTHOR_EMAIL: "b@example.com", GIT_COMMITTER_NAME: "b", GIT_COMMITTER_EMAIL: "b@example.com" };

async function makeRepo(root: string, rand: () => number): Promise<string[]> {
  const files: string[] = [];
  for (let i = 0; i < FILES; i++) {
    const dir = `pkg${i % DIRS}`;
    const ext = i % 3 === 0 ? "sh" : "ts";
    const rel = `${dir}/${ext === "sh" ? "scripts" : "src"}/file${i}.${ext}`;
    const lines: string[] = [];
    for (let l = 0; l < 40; l++) {
      lines.push(ext === "sh" ? `value_${i}_${l}=$(compute_${l % 7} "$input" || echo ${l % 5})` : `export const value_${i}_${l} = compute${l % 7}(input, ${Math.floor(rand() * 1000)});`);
    }
    if (i % 17 === 0) lines.push(ext === "sh" ? `ts=$(stat -c %Y "$f" || echo 0)  # marker_${i % DIRS}` : `retryForever(() => call_${i % DIRS}()); // marker_${i % DIRS}`);
    files.push(rel);
    await mkdir(path.join(root, path.dirname(rel)), { recursive: true });
    await writeFile(path.join(root, rel), `${lines.join("\n")}\n`);
  }
  return files;
}

function entryText(i: number, rand: () => number): string {
  const dir = `pkg${Math.floor(rand() * DIRS)}`;
  const r = rand();
  let verify: string;
  if (r < 0.6) verify = `grep for \`marker_${dir.slice(3)}\` in ${dir}/scripts/*.sh and ${dir}/src/*.ts.`;
  else if (r < 0.8) verify = `grep for \`stat.*|| echo gone_${i}\` in ${dir}/scripts/*.sh.`;
  else if (r < 0.85) verify = `grep for \`retryForever(() => call_${Math.floor(rand() * DIRS)}\` in pkg*/src/**/*.ts.`;
  else if (r < 0.88) verify = `grep for \`never_written_${i}(\` in **/*.ts.`;
  else verify = "Re-read the handler and compare it with the documentation.";
  return `---\nlastConfirmed: 2026-02-12\nprovenance: independent\n---\nFinding number ${i} about ${dir}: fallbacks hide errors.\n\nEvidence: ${dir}/src/ — the package.\nVerify: ${verify}\n`;
}

async function main(): Promise<void> {
  const root = await mkdtemp(path.join(os.tmpdir(), "cairn-bench-verify-"));
  try {
    const rand = random(7);
    log(`writing ${FILES} files and ${ENTRIES} entries in ${root}`);
    const files = await makeRepo(root, rand);
    await mkdir(path.join(root, "knowledge"), { recursive: true });
    for (let i = 0; i < ENTRIES; i++) await writeFile(path.join(root, "knowledge", `entry-${String(i).padStart(4, "0")}.md`), entryText(i, rand));
    execFileSync("git", ["init", "-q"], { cwd: root, env: GIT_ENV });
    execFileSync("git", ["add", "-A"], { cwd: root, env: GIT_ENV });
    execFileSync("git", ["commit", "-qm", "corpus"], { cwd: root, env: GIT_ENV });

    const cli: number[] = [];
    const node: number[] = [];
    const lib: number[] = [];
    const floor: number[] = [];
    const cliCpu: number[] = [];
    const base: number[] = [];
    const baseCpu: number[] = [];
    if (BASE_DIR && !BASE_CLI) throw new Error(`--base ${BASE_DIR}: no dist/cli/main.js there; expected a built package or its dist/`);
    let summary: { passed: number; failed: number; notMechanical: number } | undefined;
    /** One timed `cairn verify --dry-run --json` of `cli`; /usr/bin/time reports its CPU seconds, which other jobs on a loaded box inflate far less than wall time. */
    const verifyOnce = async (cli: string) => {
      const timer = existsSync("/usr/bin/time") ? ["/usr/bin/time", "-f", "cpu %U %S"] : [];
      const [command, ...args] = [...timer, process.execPath, cli, "--root", root, "verify", "--dry-run", "--json"];
      const proc = await runProcess(command!, args);
      if (proc.code !== 0) throw new Error(`cairn verify (${cli}) exited ${proc.code}: ${proc.stderr}`);
      const cpuLine = /cpu ([\d.]+) ([\d.]+)/.exec(proc.stderr);
      const report = JSON.parse(proc.stdout) as { passed: number; failed: number; notMechanical: number };
      return { ms: proc.ms, cpu: cpuLine ? (Number(cpuLine[1]) + Number(cpuLine[2])) * 1000 : undefined, summary: { passed: report.passed, failed: report.failed, notMechanical: report.notMechanical } };
    };
    for (let run = 0; run < RUNS; run++) {
      node.push((await runProcess(process.execPath, ["-e", ""])).ms);
      const baseFirst = BASE_CLI !== undefined && run % 2 === 1;
      const before = baseFirst ? await verifyOnce(BASE_CLI!) : undefined;
      const now = await verifyOnce(CLI);
      const after = BASE_CLI !== undefined && !baseFirst ? await verifyOnce(BASE_CLI) : undefined;
      const was = before ?? after;
      cli.push(now.ms);
      if (now.cpu !== undefined) cliCpu.push(now.cpu);
      if (was) {
        base.push(was.ms);
        if (was.cpu !== undefined) baseCpu.push(was.cpu);
        if (JSON.stringify(was.summary) !== JSON.stringify(now.summary)) throw new Error(`the base build reports ${JSON.stringify(was.summary)}, this build ${JSON.stringify(now.summary)}`);
      }
      summary = now.summary;
      const kb = await openKnowledgeBase({ root, embedder: null });
      lib.push((await timed(() => kb.verify({ dryRun: true }))).ms);
      floor.push((await timed(async () => Promise.all(files.map((f) => readFile(path.join(root, f), "utf8"))))).ms);
      log(`run ${run + 1}/${RUNS}: CLI ${fmt(cli[run]!)} ms${base.length ? ` (base build ${fmt(base[run]!)} ms)` : ""}, library ${fmt(lib[run]!)} ms`);
    }
    const cliMs = median(cli);
    const cpuMs = cliCpu.length ? median(cliCpu) : undefined;
    const load = os.loadavg()[0]!;
    const goals: GoalRow[] = [
      {
        metric: `\`cairn verify\` CLI, ${ENTRIES.toLocaleString("en")} entries over a ${FILES.toLocaleString("en")}-file repository, wall`,
        goal: `≤ ${fmt(GOAL_MS)} ms`,
        measured: `${fmt(cliMs)} ms (median of ${RUNS}, load average ${fmt(load)} on ${os.cpus().length} cores)`,
        baseline: `${fmt(cliMs / median(floor))}× reading every tracked file once (${fmt(median(floor))} ms); node start ${fmt(median(node))} ms`,
        pass: quick ? null : cliMs <= GOAL_MS,
      },
      ...(cpuMs === undefined ? [] : [{ metric: "the same, CPU time of the process (user + system)", goal: `≤ ${fmt(GOAL_MS)} ms`, measured: `${fmt(cpuMs)} ms`, pass: quick ? null : cpuMs <= GOAL_MS }]),
      { metric: "the same through the library (no process start), wall", goal: "—", measured: `${fmt(median(lib))} ms`, pass: null },
      ...(base.length
        ? [
            {
              metric: "the base build's CLI in the same runs (alternating), wall / CPU",
              goal: "—",
              measured: `${fmt(median(base))} ms / ${baseCpu.length ? `${fmt(median(baseCpu))} ms` : "—"}`,
              baseline: `this build ${fmt(cliMs / median(base))}× its wall${cpuMs !== undefined && baseCpu.length ? `, ${fmt(cpuMs / median(baseCpu))}× its CPU` : ""}; same results`,
              pass: null,
            },
          ]
        : []),
    ];
    const rows = [
      { what: "results", passed: summary?.passed, failed: summary?.failed, notMechanical: summary?.notMechanical },
    ];
    console.log(`\n## cairn verify\n\n${goalTable(goals)}\n\n${table(rows)}`);
    const out = await writeResults("verify", goals, { quick, files: FILES, entries: ENTRIES, base: BASE_DIR ?? null, runs: { cli, cliCpu, node, lib, floor, ...(base.length ? { base, baseCpu } : {}) }, tables: { results: rows } });
    console.log(`\nwrote ${path.relative(REPO, out)}`);
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

await main();
