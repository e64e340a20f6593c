/**
 * kill -9 at random points of every mutating command (issue 8, "Prove it"): confirm, retract,
 * restore, decay (archive), supersede, set-status, record, compound, inject, new, index, init.
 * Each trial copies a 61-entry knowledge base, starts the command, sends SIGKILL, runs the next
 * command — which repairs — and checks the invariants of test/helpers/crash.ts (every entry
 * parses, no id in both places, no lost entry, events agree with the files, a valid ledger,
 * nothing left pending). Goal: 0 corrupt states.
 *
 *   random:   the kill delay is uniform over the command's own unkilled duration (median of 3,
 *             measured first), from 15% to 110% of it;
 *   targeted: for the five commands that move or delete entries, the kill lands 0–30 ms after
 *             the change's log appears, i.e. inside the change (this is what the random kills
 *             rarely hit: the files change in a few ms of a ~1 s process).
 * Same-run baseline (--baseline DIR: a built checkout of the code before this change, e.g.
 * `git archive <base> | tar -x -C DIR` + build): the random trials against it.
 *
 * Run: npx tsx bench/crash.ts [--quick] [--trials N] [--baseline DIR]
 */
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { measure, SCENARIOS, trial, writeTemplate, type KillAt, type Scenario, type Trial } from "../test/helpers/crash.js";
import { CLI } from "../test/helpers/cli.js";
import { benchArgs, log } from "./lib/args.js";
import { cliIn } from "./lib/cli-path.js";
import { random } from "./lib/corpus.js";
import { fmt, goalTable, table, writeResults, type GoalRow } from "./lib/report.js";
import { median } from "./lib/stats.js";

const { quick } = benchArgs();
const option = (name: string) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const PER_COMMAND = Number(option("--trials") ?? (quick ? 4 : 20));
const TARGETED = quick ? 2 : 10;
const BASELINE = option("--baseline");
const MOVES = ["decay (archive)", "restore", "supersede", "retract", "compound"];

type Row = Record<string, string | number>;

async function randomTrials(template: string, work: string, cli: string, perCommand: number, seed: number): Promise<{ trials: Trial[]; rows: Row[] }> {
  const rand = random(seed);
  const all: Trial[] = [];
  const rows: Row[] = [];
  for (const scenario of SCENARIOS) {
    const durations: number[] = [];
    for (let i = 0; i < 3; i++) durations.push(await measure(template, work, scenario, cli));
    const unkilled = median(durations);
    const trials: Trial[] = [];
    for (let i = 0; i < perCommand; i++) trials.push(await trial(template, work, scenario, { afterMs: Math.round(unkilled * (0.15 + 0.95 * rand())) }, cli));
    all.push(...trials);
    rows.push(row(scenario, trials, unkilled));
    log(`${cli === CLI ? "" : "baseline "}${scenario.name}: ${JSON.stringify(rows.at(-1))}`);
  }
  return { trials: all, rows };
}

function row(scenario: Scenario, trials: Trial[], unkilled?: number): Row {
  return {
    command: scenario.name,
    trials: trials.length,
    killed: trials.filter((t) => t.killed).length,
    "killed mid-change (finished by the next command)": trials.filter((t) => t.repaired).length,
    corrupt: trials.filter((t) => t.problems.length).length,
    ...(unkilled !== undefined ? { "unkilled ms (median of 3)": Math.round(unkilled), "next command ms (median)": Math.round(median(trials.map((t) => t.nextMs))) } : {}),
  };
}

function examples(trials: Trial[]): string[] {
  return trials.filter((t) => t.problems.length).slice(0, 8).map((t) => `${t.scenario} (${describe(t.kill)}): ${t.problems.join(" | ")}`);
}

function describe(kill: KillAt): string {
  return "afterMs" in kill ? `killed at ${kill.afterMs} ms` : `killed ${kill.afterLogMs} ms after its log appeared`;
}

async function main(): Promise<void> {
  const work = await mkdtemp(path.join(os.tmpdir(), "cairn-crash-"));
  const template = path.join(work, "template");
  await writeTemplate(template);
  try {
    const random1 = await randomTrials(template, work, CLI, PER_COMMAND, 20260805);
    const rand = random(7);
    const targeted: Trial[] = [];
    const targetedRows: Row[] = [];
    for (const name of MOVES) {
      const scenario = SCENARIOS.find((s) => s.name === name)!;
      const trials: Trial[] = [];
      for (let i = 0; i < TARGETED; i++) trials.push(await trial(template, work, scenario, { afterLogMs: Math.floor(rand() * 30) }));
      targeted.push(...trials);
      targetedRows.push(row(scenario, trials));
      log(`targeted ${name}: ${JSON.stringify(targetedRows.at(-1))}`);
    }
    const baseline = BASELINE ? await randomTrials(template, work, cliIn(BASELINE), Math.max(2, Math.round(PER_COMMAND / 2)), 20260805) : undefined;

    const all = [...random1.trials, ...targeted];
    const corrupt = all.filter((t) => t.problems.length).length;
    const midChange = all.filter((t) => t.repaired).length;
    const baseCorrupt = baseline?.trials.filter((t) => t.problems.length).length;
    const nextRatio = (name: string) => {
      const r = random1.rows.find((x) => x.command === name)!;
      return Number(r["next command ms (median)"]) / Number(r["unkilled ms (median of 3)"]);
    };
    const goals: GoalRow[] = [
      {
        metric: "kill -9 at random points of 12 mutating commands, plus inside the change of the 5 that move or delete entries",
        goal: "≥ 200 trials, 0 corrupt states",
        measured: `**${corrupt} corrupt** in ${all.length} trials (${all.filter((t) => t.killed).length} killed; ${midChange} killed mid-change and finished by the next command)`,
        baseline: baseline ? `code before this change, same random trials: ${baseCorrupt} corrupt in ${baseline.trials.length}` : "issue 8: 2 of 36 `decay` kills left an entry in both places with no event",
        pass: all.length >= 200 && corrupt === 0,
      },
      { metric: "`index` right after a killed `index` (stale lock)", goal: "no wait for a dead holder", measured: `${fmt(nextRatio("index"))}× an unkilled \`index\``, baseline: baselineRatio(baseline?.rows, "index") ?? "issue 8: stalled 15–26 s", pass: nextRatio("index") < 2 },
      { metric: "`inject` right after a killed `inject` (stale lock)", goal: "never waits > 1 s for a lock", measured: `${fmt(nextRatio("inject"))}× an unkilled \`inject\``, baseline: baselineRatio(baseline?.rows, "inject") ?? "issue 8: stalled ~31 s", pass: nextRatio("inject") < 2 },
    ];
    console.log(goalTable(goals));
    console.log(table(random1.rows));
    console.log(table(targetedRows));
    if (baseline) console.log(table(baseline.rows));
    const shown = [...examples(all), ...(baseline ? examples(baseline.trials).map((e) => `before: ${e}`) : [])];
    for (const e of shown) console.log(`- ${e}`);
    await writeResults("crash", goals, {
      tables: { random: table(random1.rows), targeted: table(targetedRows), ...(baseline ? { baseline: table(baseline.rows) } : {}) },
      perCommand: PER_COMMAND,
      targetedPerCommand: TARGETED,
      examples: shown,
    });
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

function baselineRatio(rows: Row[] | undefined, name: string): string | undefined {
  const r = rows?.find((x) => x.command === name);
  if (!r) return undefined;
  return `before this change: ${fmt(Number(r["next command ms (median)"]) / Number(r["unkilled ms (median of 3)"]))}× (${r["next command ms (median)"]} ms)`;
}

await main();
