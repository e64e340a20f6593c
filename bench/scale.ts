/**
 * Issue 12 at scale: every command as a cold process on generated knowledge bases of 10,000 and 100,000
 * entries (real git repositories with a ledger of past runs and a built index), medians of ≥ 5 runs with
 * each run's peak RSS, next to two baselines measured in the same repetitions: `node -e ""` and reading +
 * parsing every entry with gray-matter in one process (bench/lib/parse-all.mjs). Plus warm library rows,
 * the first `search` of a fresh clone with the default embedder, and `cairn watch` on the largest base.
 *
 * The 10k/100k bases use `"embedder": {"provider": "none"}` (embedding 100k entries with the real model
 * takes hours); the fresh-clone row uses the default embedder (USE-lite), which is what it measures.
 *
 *   npm run bench -- scale [--quick]
 *   npx tsx bench/scale.ts [--quick] [--base DIR [--only-base]] [--sizes 10000,100000] [--runs 5]
 *                          [--clone-runs 5] [--clone-entries 1000] [--timeout-min 10]
 *                          [--no-clone] [--no-watch] [--no-served] [--merge] [--keep] [--rep-minutes M]
 *
 * --base DIR     also time another build in the same run, interleaved (DIR: its dist/ or its checkout);
 *                make one with: git worktree add /tmp/cairn-base COMMIT && cd /tmp/cairn-base && npm ci
 * --only-base    time only the --base build (the "before" figures when this checkout is the same code)
 * --sizes none   only the fresh-clone row (with --merge: added to the sizes already measured); with
 *                --no-clone too, nothing is measured: the tables are re-rendered from the stored results
 * --merge        keep the measurements of bench/results/scale.json that this run does not redo (read
 *                again at every write, so two runs of different parts can share the file)
 * --rep-minutes  start no further repetition of a size after M minutes (at least one runs; each row
 *                reports how many runs its median is of)
 * --no-served    skip the rows timed again with `cairn watch` running (the current build's watcher runs the
 *                commands for their processes; the base build may predate that)
 * --keep         keep the temp directories (their paths are printed)
 */
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { log } from "./lib/args.js";
import { cliIn } from "./lib/cli-path.js";
import { coldRun, hasGnuTime } from "./lib/cold.js";
import { generateQueries } from "./lib/corpus.js";
import { fmt, goalTable, machine, RESULTS_DIR, table, writeResults, type GoalRow } from "./lib/report.js";
import { buildKnowledgeBase, copyKnowledgeBase, sh, type ScaleKb } from "./lib/scale-kb.js";
import { compareTable, firstIndexRows, fmtMb, fmtMs, record, referenceRows, scaledRows, summarizeRuns, warmRows, type RunRecord, type SizeMeasurements } from "./lib/scale-report.js";
import { ROWS, type RowContext } from "./lib/scale-rows.js";
import { measureServed, OWN_PROCESS, SERVED_ROWS, servedName } from "./lib/scale-served.js";
import { checkWatcher, inotifyLimits, type WatchCheck } from "./lib/scale-watch.js";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const REPO = path.join(HERE, "..");
const NODE = process.execPath;

type Build = { name: "base" | "current"; dist: string; cli: string; commit?: string };
/** A build as the results file records it. */
type RecordedBuild = Pick<Build, "name" | "dist" | "commit">;

type Args = {
  quick: boolean;
  sizes: number[];
  runs: number;
  cloneRuns: number;
  cloneEntries: number;
  timeoutMs: number;
  base?: string;
  onlyBase: boolean;
  clone: boolean;
  watch: boolean;
  /** Also time the command rows with `cairn watch` running (it runs them for the command processes). */
  served: boolean;
  merge: boolean;
  keep: boolean;
  /** Stop starting repetitions of a size after this many minutes (at least one runs). Default: no limit. */
  repMinutes: number;
};

function parseArgs(argv: readonly string[]): Args {
  const value = (flag: string) => {
    const at = argv.indexOf(flag);
    return at >= 0 ? argv[at + 1] : undefined;
  };
  const int = (flag: string, fallback: number) => {
    const text = value(flag);
    if (text === undefined) return fallback;
    const n = Number(text);
    if (!Number.isInteger(n) || n < 1) throw new Error(`${flag} expects a positive whole number, got ${JSON.stringify(text)}`);
    return n;
  };
  const quick = argv.includes("--quick") || process.env["CAIRN_BENCH_QUICK"] === "1";
  const sizesText = value("--sizes");
  const sizes = sizesText === "none" ? [] : sizesText ? sizesText.split(",").map((s) => Number(s.replace(/_/g, ""))) : quick ? [1_000, 3_000] : [10_000, 100_000];
  if (sizes.some((n) => !Number.isInteger(n) || n < 100)) throw new Error(`--sizes expects entry counts ≥ 100, e.g. 10000,100000; got ${JSON.stringify(sizesText)}`);
  const base = value("--base") ?? process.env["CAIRN_BASE_DIST"];
  return {
    quick,
    sizes: [...sizes].sort((a, b) => a - b),
    runs: int("--runs", quick ? 3 : 5),
    cloneRuns: int("--clone-runs", quick ? 1 : 5),
    cloneEntries: int("--clone-entries", quick ? 100 : 1_000),
    timeoutMs: int("--timeout-min", 10) * 60_000,
    ...(base ? { base } : {}),
    onlyBase: argv.includes("--only-base"),
    clone: !argv.includes("--no-clone"),
    watch: !argv.includes("--no-watch"),
    served: !argv.includes("--no-served"),
    merge: argv.includes("--merge"),
    keep: argv.includes("--keep"),
    repMinutes: int("--rep-minutes", Number.MAX_SAFE_INTEGER),
  };
}

/** A build from a dist/ directory or a checkout holding one. */
async function buildAt(name: Build["name"], dir: string): Promise<Build> {
  const abs = path.resolve(dir);
  const dist = existsSync(path.join(abs, "cli", "main.js")) ? abs : path.join(abs, "dist");
  const cli = cliIn(dist);
  if (!existsSync(cli)) throw new Error(`no cairn build at ${dir}: expected ${cli}; build it with npm ci (or npm run build) in its checkout`);
  const commit = (await sh("git", ["rev-parse", "HEAD"], path.dirname(dist)).catch(() => "")).trim();
  return { name, dist, cli, ...(commit ? { commit } : {}) };
}

const describe = (r: RunRecord) => `${fmtMs(r.ms)} ${fmtMb(r.rssMb)}${r.outcome !== "ok" ? ` ${r.outcome.toUpperCase()} (exit ${r.code})` : ""}${r.problem ? ` (${r.problem})` : ""}`;

/** Seconds per phase of this run, so the bench's own cost is on record. */
const phases: Array<{ phase: string; seconds: number }> = [];
async function phase<T>(name: string, fn: () => Promise<T>): Promise<T> {
  const t0 = performance.now();
  log(`${name}…`);
  try {
    return await fn();
  } finally {
    const seconds = Math.round((performance.now() - t0) / 100) / 10;
    phases.push({ phase: name, seconds });
    log(`${name}: ${fmt(seconds)} s`);
  }
}

/** Measure one size; `size` is handed to `progress` as soon as it exists and again after every repetition (partial results survive a stopped run). */
async function measureSize(entries: number, builds: readonly Build[], args: Args, work: string, isLargest: boolean, progress: (size: SizeMeasurements) => Promise<void>): Promise<{ size: SizeMeasurements; kb: ScaleKb; watch: Record<string, WatchCheck> }> {
  const label = `${entries.toLocaleString("en-US")} entries`;
  const dir = await mkdtemp(path.join(work, `n${entries}-`));
  const gen = path.join(dir, "generated");
  await mkdir(gen);
  const kb = await phase(`generate ${label}`, () => buildKnowledgeBase(gen, { entries, embedder: { provider: "none" }, cli: builds.at(-1)!.cli }, log));
  const size: SizeMeasurements = { entries, baselines: { node: [], parse: [] }, rows: {}, warm: {}, initialIndex: {}, ledger: kb.ledger, archived: kb.archived };
  const roots: Record<string, string> = {};
  await phase(`copy and index ${label} per build`, async () => {
    for (const build of builds) {
      const root = path.join(dir, build.name);
      await mkdir(root);
      await copyKnowledgeBase(gen, root);
      roots[build.name] = root;
      const run = await coldRun(NODE, [build.cli, "--root", root, "index"], { timeoutMs: args.timeoutMs * 3 });
      size.initialIndex[build.name] = record(run);
      log(`  ${build.name}: cold \`cairn index\` ${describe(size.initialIndex[build.name]!)}`);
    }
  });
  const scratch = path.join(dir, "scratch");
  await mkdir(scratch);
  const dirty: Record<string, boolean> = {};
  /** Rows that failed or timed out are not repeated (a 10-minute timeout × 5 would stall the run). */
  const given: Record<string, Set<string>> = {};
  await phase(`repetitions at ${label}`, async () => {
    const t0 = performance.now();
    for (let rep = 0; rep < args.runs; rep++) {
      if (rep > 0 && performance.now() - t0 > args.repMinutes * 60_000) {
        log(`  stopping after ${rep} repetitions: --rep-minutes ${args.repMinutes} reached`);
        break;
      }
      size.baselines.node.push(record(await coldRun(NODE, ["-e", ""])));
      const parse = await coldRun(NODE, [path.join(HERE, "lib", "parse-all.mjs"), gen]);
      size.baselines.parse.push(record(parse));
      log(`  rep ${rep + 1}/${args.runs}: node -e "" ${describe(size.baselines.node.at(-1)!)}, parse-all ${describe(size.baselines.parse.at(-1)!)} ${parse.stdout.trim()}`);
      const order = rep % 2 ? [...builds].reverse() : builds;
      for (const build of order) {
        const root = roots[build.name]!;
        const rows = (size.rows[build.name] ??= {});
        const skip = (given[build.name] ??= new Set());
        const ctx: RowContext = { cli: build.cli, root, rep, entries: kb.active, sources: kb.sources, agents: kb.agents, scratch };
        for (const row of ROWS) {
          if (skip.has(row.id)) continue;
          if (row.fresh && dirty[build.name]) {
            const settle = await coldRun(NODE, [build.cli, "--root", root, "index"], { timeoutMs: args.timeoutMs });
            if (settle.outcome !== "ok") log(`  ${build.name}: untimed \`cairn index\` before ${row.id} ${settle.outcome}: ${settle.stderr.slice(-300)}`);
            dirty[build.name] = false;
          }
          await row.prepare?.(ctx);
          const run = await coldRun(NODE, [build.cli, "--root", root, ...row.args(ctx)], { timeoutMs: args.timeoutMs, env: OWN_PROCESS, ...(row.okCodes ? { okCodes: row.okCodes } : {}) });
          const problem = run.outcome === "ok" ? row.verify?.(run.stdout, ctx) : undefined;
          const rec = record(run, problem);
          (rows[row.id] ??= { runs: [] }).runs.push(rec);
          if (row.mutates || row.prepare || run.outcome !== "ok") dirty[build.name] = true;
          if (row.id === "search-edit" && run.outcome === "ok") dirty[build.name] = false; // the search saved the refreshed index
          if (run.outcome !== "ok") {
            skip.add(row.id);
            log(`  ${build.name} ${row.id}: ${run.outcome}; not repeated. stderr: ${run.stderr.trim().slice(-600)}`);
          }
          log(`  rep ${rep + 1} ${build.name} ${row.id}: ${describe(rec)}`);
        }
      }
      await progress(size);
    }
  });
  const main = builds.at(-1)!;
  if (args.served && main.name === "current") {
    await phase(`rows with cairn watch running at ${label}`, async () => {
      const context = { entries: kb.active, sources: kb.sources, agents: kb.agents, scratch };
      const watcher = await measureServed(main.cli, main.name, roots[main.name]!, size, context, { runs: args.runs, timeoutMs: args.timeoutMs, log });
      size.served = { ...size.served, [main.name]: watcher };
      log(`  ${servedName(main.name)}: ${watcher.outcome}, watcher ready in ${fmtMs(watcher.readyMs ?? Number.NaN)}, its peak RSS ${fmtMb(watcher.peakRssMb)}${watcher.stderr ? `: ${watcher.stderr.slice(-400)}` : ""}`);
    });
    await progress(size);
  }
  await phase(`warm library rows at ${label}`, async () => {
    const queries = path.join(scratch, "queries.json");
    // 200 timed calls of each after 3 warm-up calls: the first few dozen run before the JIT has compiled the hot paths
    // (23–30 ms an inject at 10k, against 15–18 ms after), so a p50 over only 40 calls measured the warm-up, not a
    // warm process (the report gives the first 40 calls' p50 too).
    await writeFile(queries, JSON.stringify(generateQueries(args.quick ? 13 : 203, 7)));
    for (const build of builds) {
      const run = await coldRun(NODE, [path.join(HERE, "lib", "scale-warm.mjs"), build.dist, roots[build.name]!, queries], { timeoutMs: args.timeoutMs * 2 });
      if (run.outcome !== "ok") {
        size.warm[build.name] = { outcome: run.outcome, stderr: run.stderr.slice(-2_000) };
        log(`  ${build.name}: warm library process ${run.outcome}: ${run.stderr.slice(-400)}`);
        continue;
      }
      const result = JSON.parse(run.stdout.trim().split("\n").at(-1)!) as { firstMs: number; search: number[]; inject: number[]; rssMb: number; peakRssMb: number };
      size.warm[build.name] = { outcome: "ok", ...result, search: result.search.map((x) => Math.round(x * 100) / 100), inject: result.inject.map((x) => Math.round(x * 100) / 100), peakRssMb: run.rssMb ?? result.peakRssMb };
      log(`  ${build.name}: warm search p50 ${fmtMs(summarizeRuns(result.search.map((ms) => ({ ms, rssMb: null, outcome: "ok", code: 0 }))).ms)}, RSS ${fmtMb(result.rssMb)} (peak ${fmtMb(run.rssMb)})`);
    }
  });
  const watch: Record<string, WatchCheck> = {};
  if (isLargest && args.watch) {
    await phase(`cairn watch at ${label}`, async () => {
      for (const build of builds) {
        const check = await checkWatcher(build.cli, roots[build.name]!, kb.active, { edits: args.quick ? 2 : 3, timeoutMs: args.timeoutMs, log });
        watch[build.name] = check;
      }
    });
  }
  if (!args.keep) await rm(dir, { recursive: true, force: true });
  else log(`kept ${dir}`);
  return { size, kb, watch };
}

/** First `search` in a fresh `git clone` (no .cairn/) with the default embedder, per build. */
async function measureClone(builds: readonly Build[], args: Args, work: string): Promise<{ entries: number; node: RunRecord[]; runs: Record<string, RunRecord[]> }> {
  const dir = await mkdtemp(path.join(work, "clone-"));
  const gen = path.join(dir, "origin");
  await mkdir(gen);
  const kb = await phase(`generate ${args.cloneEntries.toLocaleString("en-US")} entries (default embedder) for the fresh-clone row`, () => buildKnowledgeBase(gen, { entries: args.cloneEntries, cli: builds.at(-1)!.cli }, log));
  const out = { entries: args.cloneEntries, node: [] as RunRecord[], runs: {} as Record<string, RunRecord[]> };
  const given = new Set<string>();
  await phase("fresh-clone searches", async () => {
    for (let rep = 0; rep < args.cloneRuns; rep++) {
      out.node.push(record(await coldRun(NODE, ["-e", ""])));
      for (const build of rep % 2 ? [...builds].reverse() : builds) {
        if (given.has(build.name)) continue;
        const clone = path.join(dir, `clone-${build.name}-${rep}`);
        await sh("git", ["clone", "-q", gen, clone], dir);
        const q = generateQueries(rep + 1, 5).at(-1)!;
        const run = await coldRun(NODE, [build.cli, "--root", clone, "search", q.query, "--json"], { timeoutMs: args.timeoutMs });
        const rec = record(run, run.outcome === "ok" && !run.stdout.includes('"results"') ? "no JSON results" : undefined);
        (out.runs[build.name] ??= []).push(rec);
        if (run.outcome !== "ok") given.add(build.name);
        log(`  rep ${rep + 1} ${build.name}: first search in a fresh clone ${describe(rec)}`);
        await rm(clone, { recursive: true, force: true });
      }
    }
  });
  void kb;
  if (!args.keep) await rm(dir, { recursive: true, force: true });
  else log(`kept ${dir}`);
  return out;
}

type Previous = { sizes?: SizeMeasurements[]; clone?: Awaited<ReturnType<typeof measureClone>>; watch?: { entries: number; builds: Record<string, WatchCheck> } };
type PreviousFile = { builds?: RecordedBuild[]; measurements?: Previous; loads?: Array<{ at: string; loadavg: number[] }>; tables?: { phases?: Array<{ phase: string; minutes: number }> } };

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const atStart = machine();
  const builds: Build[] = [];
  if (args.base) builds.push(await buildAt("base", args.base));
  if (!args.onlyBase) builds.push(await buildAt("current", REPO));
  if (!builds.length) throw new Error("--only-base needs --base DIR");
  if (!hasGnuTime) log("warning: /usr/bin/time (GNU time) is missing: peak RSS is not measured");
  log(`builds: ${builds.map((b) => `${b.name} ${b.dist}${b.commit ? ` (${b.commit.slice(0, 7)})` : ""}`).join(", ")}; sizes ${args.sizes.join(", ")}; ${args.runs} runs; load average ${atStart.loadavg.join(" / ")}`);
  /** The build the goal rows are about: the last one this run times (current, or base with --only-base). */
  const mainBuild = builds.at(-1)!.name;
  const work = await mkdtemp(path.join(os.tmpdir(), "cairn-scale-"));
  /** The results file as it is now (another run may be writing other parts of it). */
  const previous = async (): Promise<PreviousFile> =>
    args.merge ? (JSON.parse(await readFile(path.join(RESULTS_DIR, "scale.json"), "utf8").catch(() => "{}")) as PreviousFile) : {};
  const sizes: SizeMeasurements[] = [];
  let clone: Previous["clone"];
  let watch: Previous["watch"];
  /** Nothing to measure: only re-render the tables of bench/results/scale.json (with --merge). */
  const renderOnly = !args.sizes.length && !args.clone;
  const loads: Array<{ at: string; loadavg: number[] }> = renderOnly ? [] : [{ at: `start (${args.sizes.length ? args.sizes.join(", ") : "fresh clone"})`, loadavg: atStart.loadavg }];
  try {
    for (const entries of args.sizes) {
      const measured = await measureSize(entries, builds, args, work, entries === args.sizes.at(-1), async (size) => {
        if (!sizes.includes(size)) sizes.push(size);
        await report();
      });
      if (Object.keys(measured.watch).length) watch = { entries, builds: measured.watch };
      loads.push({ at: `after ${entries}`, loadavg: machine().loadavg });
      await report();
    }
    if (args.clone) {
      clone = await measureClone(builds, args, work);
      loads.push({ at: "after the fresh-clone row", loadavg: machine().loadavg });
      await report();
    }
    if (renderOnly) await report();
  } finally {
    if (!args.keep) await rm(work, { recursive: true, force: true });
  }

  async function report(): Promise<void> {
    const before = await previous();
    const mine = new Set(sizes.map((s) => s.entries));
    const allSizes = [...(before.measurements?.sizes ?? []).filter((s) => !mine.has(s.entries) && !args.sizes.includes(s.entries)), ...sizes].sort((a, b) => a.entries - b.entries);
    const cloneNow = clone ?? (args.clone ? undefined : before.measurements?.clone);
    const watchNow = watch ?? (args.watch && args.sizes.length ? undefined : before.measurements?.watch);
    const myPhases = new Set(phases.map((p) => p.phase));
    const allPhases = [...(before.tables?.phases ?? []).filter((p) => !myPhases.has(p.phase)), ...phases.map((p) => ({ phase: p.phase, minutes: Math.round(p.seconds / 6) / 10 }))];
    const myLoads = new Set(loads.map((l) => l.at));
    // Loads of phases this run measures again are replaced, whatever their label ("start (fresh clone)" of an
    // earlier clone-only run must not sit next to this run's clone row).
    const redone = (at: string) => myLoads.has(at) || args.sizes.some((n) => at === `start (${n})` || at.startsWith(`start (${n},`) || at === `after ${n}`) || (args.clone && /fresh[ -]clone/.test(at));
    const allLoads = [...(before.loads ?? []).filter((l) => !redone(l.at)), ...loads];
    // Builds of the kept measurements too (a --base run of 10k merged with a current-only run of 100k): base first.
    const timed = new Set(builds.map((b) => b.name));
    const allBuilds: RecordedBuild[] = [...(before.builds ?? []).filter((b) => !timed.has(b.name)), ...builds].sort((a, b) => (a.name === "base" ? -1 : b.name === "base" ? 1 : 0));
    await writeReport(allBuilds, allSizes, cloneNow, watchNow, allPhases, allLoads);
  }

  async function writeReport(builds: readonly RecordedBuild[], sizes: SizeMeasurements[], clone: Previous["clone"], watch: Previous["watch"], phases: Array<{ phase: string; minutes: number }>, loads: Array<{ at: string; loadavg: number[] }>): Promise<void> {
    const primary = mainBuild;
    const tag = builds.length > 1 || primary === "base" ? ` (${primary === "base" ? "base build" : "current build"})` : "";
    const goals: GoalRow[] = [];
    const [reference, ...larger] = sizes;
    if (reference) goals.push(...referenceRows(ROWS, reference, primary, ""));
    for (const size of larger) goals.push(...scaledRows(ROWS, size, reference, primary, ""));
    // The same commands, each still a new process, with `cairn watch` running them for it.
    const served = servedName(primary);
    const servedRows = ROWS.filter((row) => SERVED_ROWS.has(row.id));
    const watching = " — `cairn watch` running";
    if (reference?.rows[served]) goals.push(...referenceRows(servedRows, reference, served, watching));
    for (const size of larger) if (size.rows[served]) goals.push(...scaledRows(servedRows, size, reference?.rows[served] ? reference : undefined, served, watching));
    for (const size of sizes) {
      const w = size.served?.[primary];
      if (!w) continue;
      goals.push({
        metric: `\`cairn watch\` running those commands at ${size.entries.toLocaleString("en-US")} entries: its own memory`,
        goal: "peak RSS ≤ 1 GB",
        measured: w.outcome === "ok" ? `peak ${fmtMb(w.peakRssMb)}, ${fmtMb(w.rssMb)} after the last command` : `**${w.outcome}**`,
        baseline: w.outcome === "ok" ? `ready in ${fmtMs(w.readyMs ?? Number.NaN)}` : "",
        pass: w.outcome === "ok" && (w.peakRssMb ?? Infinity) <= 1_024,
      });
    }
    goals.push(...firstIndexRows(sizes, primary));
    if (clone) {
      const s = summarizeRuns(clone.runs[primary]);
      const node = summarizeRuns(clone.node).ms;
      goals.push({
        metric: `first \`search\` in a fresh clone at ${clone.entries.toLocaleString("en-US")} entries (no \`.cairn/\`), default embedder`,
        goal: `≤ 10× \`node -e ""\` (${fmtMs(10 * node)})`,
        measured: s.status === "ok" ? `${fmtMs(s.ms)}, peak ${fmtMb(s.rssMb)}` : `**${s.status}** ${s.note ?? ""}`,
        baseline: s.status === "ok" ? `${fmt(s.ms / node)}× node (${s.runs} runs)` : "",
        pass: s.status === "ok" ? s.ms <= 10 * node : false,
      });
    }
    goals.push(...warmRows(sizes, primary, ""));
    if (watch) {
      const w = watch.builds[primary];
      if (w) {
        const found = w.edits.filter((e) => e.found).length;
        goals.push({
          metric: `\`cairn watch\` at ${watch.entries.toLocaleString("en-US")} entries: ready, peak RSS, edits searchable`,
          goal: "peak RSS ≤ 1 GB; every edit searchable",
          measured: w.outcome === "ok" ? `ready in ${fmtMs(w.readyMs ?? Number.NaN)}, peak ${fmtMb(w.peakRssMb)}; ${found}/${w.edits.length} edits found` : `**${w.outcome}**`,
          baseline: w.inotifyWatches !== null ? `${fmt(w.inotifyWatches)} inotify watches` : "",
          pass: w.outcome === "ok" && (w.peakRssMb ?? Infinity) <= 1_024 && found === w.edits.length,
        });
      }
    }
    const limits = await inotifyLimits();
    const tables: Record<string, unknown> = {
      setup: setupText(builds, sizes, loads),
      compare: compareTable(ROWS, sizes, [...builds.map((b) => b.name), ...(sizes.some((s) => s.rows[served]) ? [served] : [])]),
      watch: watchText(watch, limits),
      phases,
    };
    console.log(`\n## scale${tag}\n\n${goalTable(goals)}\n\n${typeof tables["compare"] === "string" ? tables["compare"] : table(tables["compare"] as Array<Record<string, unknown>>)}\n\n${tables["watch"]}\n`);
    const file = await writeResults("scale", goals, {
      quick: args.quick,
      builds: builds.map(({ name, dist, commit }) => ({ name, dist, ...(commit ? { commit } : {}) })),
      primary,
      loads,
      inotify: limits,
      tables,
      measurements: { sizes, ...(clone ? { clone } : {}), ...(watch ? { watch } : {}) },
    });
    log(`wrote ${file}`);
  }
}

function setupText(builds: readonly RecordedBuild[], sizes: readonly SizeMeasurements[], loads: ReadonlyArray<{ at: string; loadavg: number[] }>): string {
  const buildList = builds.map((b) => `${b.name}${b.commit ? ` (${b.commit.slice(0, 7)})` : ""}`).join(" and ");
  const kbs = sizes.map((s) => `${fmt(s.entries)} entries (${fmt(s.archived ?? 0)} archived; ${s.ledger ? `${fmt(s.ledger.events)} ledger events in ${s.ledger.runs} past runs` : "no ledger"}; runs per command: ${[...new Set(Object.values(s.rows).flatMap((r) => Object.values(r).map((x) => x.runs.length)))].join("/")})`);
  return [
    `Builds timed: ${buildList}. Cold runs per command: median, peak RSS the highest of the runs (\`/usr/bin/time -f %M\`);`,
    `baselines measured in the same repetitions. Knowledge bases: ${kbs.join("; ")}, generated by bench/lib/corpus.ts, committed to git,`,
    `index built by \`cairn index\`, \`"embedder": {"provider": "none"}\` (only the fresh-clone row uses the default embedder, USE-lite).`,
    `Load average (1/5/15 min) on this ${os.cpus().length}-core machine, shared with other jobs: ${loads.map((l) => `${l.at}: ${l.loadavg.join(" / ")}`).join("; ")}.`,
    ...(sizes.some((s) => Object.keys(s.rows).some((name) => name.endsWith("+watch")))
      ? [
          "Rows \"— `cairn watch` running\" (column `current+watch`): the same commands, each still a new process, after the cold repetitions, with `cairn watch` of the current build",
          "running on the same knowledge base; it runs them for their processes (`CAIRN_USE_WATCH=require`: a run it did not serve fails), re-checking every entry file first.",
          "Their peak RSS is the command process's; the watcher's own is a row of its own.",
        ]
      : []),
  ].join("\n");
}

function watchText(watch: Previous["watch"], limits: Record<string, number>): string {
  const lines: string[] = [];
  const lim = Object.entries(limits).map(([k, v]) => `\`${k}\` ${fmt(v)}`).join(", ");
  if (watch) {
    for (const [name, w] of Object.entries(watch.builds)) {
      const edits = w.edits.map((e) => `${e.reportedMs === null ? "never reported" : `reported in ${fmtMs(e.reportedMs)}`}, ${e.found ? "found" : `**not found** (top: ${e.top ?? "none"})`} by a cold search (${fmtMs(e.searchMs)})`).join("; ");
      lines.push(
        `- \`cairn watch\` (${name}) at ${watch.entries.toLocaleString("en-US")} entries: ${w.outcome === "ok" ? `ready after ${fmtMs(w.readyMs ?? Number.NaN)}, RSS ${fmtMb(w.rssReadyMb)} when ready, peak ${fmtMb(w.peakRssMb)}, **${fmt(w.inotifyWatches ?? Number.NaN)} inotify watches** held. Edits: ${edits}.` : `**${w.outcome}**: ${w.stderr.trim().slice(-300)}`}`,
      );
    }
  }
  lines.push(
    `- This machine's inotify limits (\`/proc/sys/fs/inotify/*\`): ${lim || "not available"}.`,
    "- What `cairn watch` needs from the system: one inotify watch for `knowledge/`, one for `knowledge/archive/` (directory watches, " +
      "which report every entry file created, written, renamed or deleted in them) and, through chokidar, one per anchored source file and " +
      "one per directory holding one. Builds before d148665 also held one per entry file (chokidar watches each file it adds), so their " +
      "`fs.inotify.max_user_watches` had to exceed the number of entries. It must now exceed the anchored source files (and what other " +
      "watchers of the same user, e.g. editors, hold). When it is too low, chokidar reports `ENOSPC: System limit for number of file " +
      "watchers reached` (`cairn watch` prints it as an error line and goes on watching the files it could; not reproduced here, the limit " +
      "is system-wide on a shared machine). Raise it with `sudo sysctl fs.inotify.max_user_watches=524288` (persist in `/etc/sysctl.d/`). " +
      "All of a process's watches share one inotify instance (`max_user_instances`, default 128 per user).",
  );
  return lines.join("\n");
}

await main();
