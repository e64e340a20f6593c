/**
 * Linear time on hostile input: all of `check` (read, parse, every rule, anchors, policy) on one
 * entry whose body repeats one rule's trigger prefix to just under the 1 MB cap, against a benign
 * 1 MB body measured in the same run (interleaved, median of 3). Goal: time per MB within 2× of the
 * benign body for every trigger. Run: npx tsx bench/hostile.ts [--quick]
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { runCheck } from "../src/check/run.js";
import { DEFAULT_CONFIG } from "../src/config.js";
import { layoutFor } from "../src/store/layout.js";
import { benchArgs, log } from "./lib/args.js";
import { hostileEntry, TRIGGERS } from "./lib/hostile.js";
import { fmt, goalTable, writeResults, type GoalRow } from "./lib/report.js";
import { median } from "./lib/stats.js";
import { timed } from "./lib/timing.js";

const { quick } = benchArgs();
const BYTES = quick ? 250_000 : 1_000_000 - 4_096;
const ROUNDS = 3;
const GOAL_RATIO = 2;

async function main(): Promise<void> {
  const root = await mkdtemp(path.join(os.tmpdir(), "cairn-bench-hostile-"));
  try {
    await writeFile(path.join(root, "cairn.config.json"), "{}");
    const layout = layoutFor(root, DEFAULT_CONFIG);
    const { mkdir } = await import("node:fs/promises");
    await mkdir(path.join(root, "knowledge"), { recursive: true });
    await mkdir(path.join(root, "src"), { recursive: true });
    await writeFile(path.join(root, "src/auth.ts"), "export function handleRequest() {\n  return fetch('x');\n}\n");
    const cases: Array<{ family: string; prefix: string | undefined; file: string; bytes: number }> = [];
    for (const [i, [family, prefix]] of [["benign", undefined] as [string, string | undefined], ...TRIGGERS].entries()) {
      const text = hostileEntry(prefix, BYTES);
      const file = `knowledge/case-${i}.md`;
      await writeFile(path.join(root, file), text);
      cases.push({ family, prefix, file, bytes: Buffer.byteLength(text) });
    }
    const times = new Map<string, number[]>();
    const diagnostics = new Map<string, number>();
    for (let round = 0; round < ROUNDS; round++) {
      log(`round ${round + 1}/${ROUNDS}: ${cases.length} entries of ${fmt(BYTES / 1e6, 2)} MB`);
      for (const c of cases) {
        const run = await timed(() => runCheck(layout, DEFAULT_CONFIG, { paths: [c.file], today: "2026-03-01" }));
        times.set(c.file, [...(times.get(c.file) ?? []), run.ms / (c.bytes / 1e6)]);
        diagnostics.set(c.file, run.value.diagnostics.length);
      }
    }
    const benign = median(times.get(cases[0]!.file)!);
    const rows = cases.map((c) => {
      const perMb = median(times.get(c.file)!);
      return { family: c.family, trigger: c.prefix === undefined ? "(benign prose)" : JSON.stringify(c.prefix).slice(0, 40), msPerMb: Math.round(perMb), ratio: Math.round((perMb / benign) * 100) / 100, diagnostics: diagnostics.get(c.file) ?? 0 };
    });
    const hostile = rows.slice(1);
    const worst = hostile.reduce((a, b) => (b.ratio > a.ratio ? b : a));
    const within = hostile.filter((r) => r.ratio <= GOAL_RATIO).length;
    const goals: GoalRow[] = [
      {
        metric: `\`cairn check\` on a ${fmt(BYTES / 1e6, 2)} MB entry repeating one rule's trigger (${hostile.length} triggers)`,
        goal: `≤ ${GOAL_RATIO}× the benign body's time per MB`,
        measured: `worst ${worst.ratio}× (${worst.trigger}); ${within}/${hostile.length} within ${GOAL_RATIO}×`,
        baseline: `benign ${fmt(BYTES / 1e6, 2)} MB body: ${fmt(benign)} ms per MB`,
        pass: within === hostile.length,
      },
    ];
    console.log(goalTable(goals));
    console.log("");
    const sorted = [...hostile].sort((a, b) => b.ratio - a.ratio);
    const { table } = await import("./lib/report.js");
    console.log(table([rows[0]!, ...sorted]));
    const out = await writeResults("hostile", goals, { bytes: BYTES, rounds: ROUNDS, tables: { triggers: table([rows[0]!, ...sorted.slice(0, 12)]) }, rows });
    log(`results written to ${path.relative(process.cwd(), out)}`);
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

await main();
