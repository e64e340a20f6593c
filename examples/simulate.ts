/**
 * Run the 30-review lifecycle simulation in a temporary git repository and print what happened.
 *
 *   npx tsx examples/simulate.ts [--keep] [--holdout RATE|off]
 *
 * --keep leaves the repository on disk (its path is printed) so you can run `git log -p` or `cairn status` in it.
 * --holdout runs the scenario with holdout (README "Holdout"); by default it follows the spec's literal rule ("off").
 * For the seeded simulation with hidden truth behind the README's integrity table, run `npm run bench -- integrity`.
 */
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { auditGitDiffs, auditInjectionCap } from "./audit.js";
import { AGENTS, IDS, runSimulation, type RunRow } from "./scenario.js";

const keep = process.argv.includes("--keep");
const holdoutArg = process.argv[process.argv.indexOf("--holdout") + 1];
const holdout = !process.argv.includes("--holdout") || holdoutArg === "off" ? ("off" as const) : Number(holdoutArg);
if (holdout !== "off" && !(holdout >= 0)) throw new Error(`--holdout expects a rate such as 0.8, or off (got ${holdoutArg})`);
const root = await mkdtemp(path.join(os.tmpdir(), "cairn-simulation-"));

const header = ["run", "date", ...AGENTS.map((a) => `inj ${a}`), "indep", "primed", "archived", "restored", "created", "manual", "true", "false+", "manual#"];
console.log(`| ${header.join(" | ")} |`);
console.log(`|${header.map(() => "---").join("|")}|`);
const cell = (ids: string[]) => (ids.length ? ids.join(", ") : "");
const print = (row: RunRow) =>
  console.log(
    `| ${[
      row.run,
      row.date,
      ...AGENTS.map((a) => row.injected[a]),
      row.independent,
      row.primed,
      cell(row.archived),
      cell(row.restored),
      cell(row.created),
      cell(row.manual),
      row.counters.truePattern,
      row.counters.falsePositive,
      row.counters.manual,
    ].join(" | ")} |`,
  );

try {
  const started = performance.now();
  const report = await runSimulation(root, { onRun: print, config: { holdout } });
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  const events = (await report.kb.ledger.read()).events;
  const cap = auditInjectionCap(events, report.kb.config.maxPerAgent);
  const diffs = auditGitDiffs(root);
  const entryEdits = diffs.changes.filter((c) => c.kind === "entry");
  console.log("");
  console.log(`Followed entries: true pattern = ${IDS.truePattern}, false positive = ${IDS.falsePositive}, manual = ${IDS.manual}.`);
  console.log(`${report.rows.length} runs in ${seconds} s; ${events.length} ledger events.`);
  console.log(`Injection cap ${report.kb.config.maxPerAgent}: max per agent per run ${cap.max}, at the cap ${cap.atCap} times, violations ${cap.violations.length}.`);
  console.log(
    `Git: ${entryEdits.length} entry file changes (${count(entryEdits, "M")} edits, ${count(entryEdits, "R")} moves, ${count(entryEdits, "A")} creations); ` +
      `largest in-place edit ${Math.max(0, ...entryEdits.filter((c) => c.status === "M").map((c) => Math.max(c.added, c.deleted)))} lines; violations ${diffs.violations.length}.`,
  );
  for (const v of diffs.violations) console.log(`  ✗ ${v.commit} ${v.path}: ${v.problem}`);
  if (keep) console.log(`Repository kept at ${root}`);
  if (cap.violations.length || diffs.violations.length) process.exitCode = 1;
} finally {
  if (!keep) await rm(root, { recursive: true, force: true });
}

function count(changes: Array<{ status: string }>, status: string): number {
  return changes.filter((c) => c.status === status).length;
}
