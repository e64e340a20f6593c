/**
 * Stale and busy locks (issue 8): a lock left by a killed `index` stalled the next one 15–26 s,
 * a stale inject lock stalled `inject` ~31 s. Here a process takes the lock and is killed with
 * SIGKILL; then `cairn index` / `cairn inject` are timed against the same command with no lock
 * (same build, same run). Also `inject` while a live process holds the inject lock: it must give
 * up after 1 s and go on. With --baseline DIR (a built checkout of the code before this change)
 * the same is measured on it, holding its own locks (proper-lockfile).
 *
 * Run: npx tsx bench/locks.ts [--quick] [--baseline DIR]
 */
import { spawn } from "node:child_process";
import { cp, mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { REPO } from "../test/helpers/cli.js";
import { writeTemplate } from "../test/helpers/crash.js";
import { benchArgs, log } from "./lib/args.js";
import { cliIn } from "./lib/cli-path.js";
import { runProcess } from "./lib/process.js";
import { fmt, goalTable, table, writeResults, type GoalRow } from "./lib/report.js";
import { median } from "./lib/stats.js";

const { quick } = benchArgs();
const REPS = quick ? 1 : 3;
const i = process.argv.indexOf("--baseline");
const BASELINE = i > 0 ? process.argv[i + 1] : undefined;
const INJECT = ["inject", "--run", "r-lock", "--agent", "security", "--keywords", "retries,timeouts"];

type Build = { name: string; dir: string; current: boolean };

/** A script that takes `name`'s lock in `cache` with `build`'s own lock code, prints "held", then waits. */
function holderScript(build: Build, cache: string, name: "index" | "inject"): string {
  if (build.current) {
    return `const { acquireLock } = await import(${JSON.stringify(path.join(build.dir, "dist/store/lock.js"))});
      await acquireLock(${JSON.stringify(cache)}, ${JSON.stringify(name)}); process.stdout.write("held\\n"); setInterval(() => {}, 1000);`;
  }
  const dir = name === "index" ? cache : path.join(cache, "inject"); // where the old code kept each lock
  return `const { acquireIndexLock } = await import(${JSON.stringify(path.join(build.dir, "dist/indexing/lock.js"))});
    await acquireIndexLock(${JSON.stringify(dir)}); process.stdout.write("held\\n"); setInterval(() => {}, 1000);`;
}

async function hold(build: Build, cache: string, name: "index" | "inject"): Promise<{ kill(): Promise<void> }> {
  const child = spawn(process.execPath, ["--input-type=module", "-e", holderScript(build, cache, name)], { stdio: ["ignore", "pipe", "inherit"] });
  await new Promise<void>((resolve, reject) => {
    child.stdout.once("data", () => resolve());
    child.once("exit", (code) => reject(new Error(`lock holder exited (${code})`)));
  });
  return {
    kill: () =>
      new Promise<void>((resolve) => {
        child.once("exit", () => resolve());
        child.kill("SIGKILL");
      }),
  };
}

async function time(build: Build, root: string, args: string[]): Promise<{ ms: number; stderr: string }> {
  const run = await runProcess(process.execPath, [cliIn(build.dir), "--root", root, ...args]);
  if (run.code !== 0) throw new Error(`${args[0]} exited ${run.code}: ${run.stderr}`);
  return { ms: run.ms, stderr: run.stderr };
}

type Measured = Record<string, number>;

async function measure(build: Build, template: string, work: string): Promise<Measured> {
  const out: Record<string, number[]> = { index: [], indexStale: [], inject: [], injectStale: [], injectBusy: [] };
  for (let rep = 0; rep < REPS; rep++) {
    const root = path.join(work, `${build.name}-${rep}`);
    await cp(template, root, { recursive: true });
    const cache = path.join(root, ".cairn");
    await time(build, root, ["index"]); // warm: the index exists
    out.index!.push((await time(build, root, ["index"])).ms);
    await (await hold(build, cache, "index")).kill();
    out.indexStale!.push((await time(build, root, ["index"])).ms);
    out.inject!.push((await time(build, root, INJECT)).ms);
    await (await hold(build, cache, "inject")).kill();
    out.injectStale!.push((await time(build, root, INJECT)).ms);
    if (rep === 0) {
      const live = await hold(build, cache, "inject");
      out.injectBusy!.push((await time(build, root, INJECT)).ms);
      await live.kill();
    }
    await rm(root, { recursive: true, force: true });
    log(`${build.name} rep ${rep}: ${JSON.stringify(Object.fromEntries(Object.entries(out).map(([k, v]) => [k, v.at(-1)])))}`);
  }
  return Object.fromEntries(Object.entries(out).map(([k, v]) => [k, median(v)]));
}

async function main(): Promise<void> {
  const work = await mkdtemp(path.join(os.tmpdir(), "cairn-locks-"));
  const template = path.join(work, "template");
  await writeTemplate(template);
  try {
    const now = await measure({ name: "current", dir: REPO, current: true }, template, work);
    const before = BASELINE ? await measure({ name: "before", dir: BASELINE, current: false }, template, work) : undefined;
    const was = (key: string, free: string) => (before ? `before this change: ${fmt(before[key]! / 1000, 1)} s (${fmt(before[key]! / before[free]!)}× its unlocked run)` : "");
    const goals: GoalRow[] = [
      { metric: "`index` after a killed process left the index lock", goal: "no wait for a dead holder", measured: `${fmt(now.indexStale! / 1000, 1)} s, ${fmt(now.indexStale! / now.index!)}× an unlocked \`index\``, baseline: was("indexStale", "index") || "issue 8: 15–26 s", pass: now.indexStale! < now.index! * 1.5 + 500 },
      { metric: "`inject` after a killed process left the inject lock", goal: "no wait for a dead holder", measured: `${fmt(now.injectStale! / 1000, 1)} s, ${fmt(now.injectStale! / now.inject!)}× an unlocked \`inject\``, baseline: was("injectStale", "inject") || "issue 8: ~31 s", pass: now.injectStale! < now.inject! * 1.5 + 500 },
      { metric: "`inject` while a live process holds the inject lock", goal: "waits ≤ 1 s, then goes on with a warning", measured: `+${fmt((now.injectBusy! - now.inject!) / 1000, 1)} s over an unlocked \`inject\``, baseline: before ? `before this change: +${fmt((before.injectBusy! - before.inject!) / 1000, 1)} s` : "", pass: now.injectBusy! - now.inject! < 1_000 + 500 },
    ];
    const rows = [now, ...(before ? [before] : [])].map((m, k) => ({ build: k === 0 ? "this change" : "before", ...Object.fromEntries(Object.entries(m).map(([key, v]) => [`${key} ms`, Math.round(v)])) }));
    console.log(goalTable(goals));
    console.log(table(rows));
    await writeResults("locks", goals, { tables: { runs: table(rows) }, reps: REPS });
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

await main();
