/**
 * Check throughput: parse + validate 10,000 generated entries, with and without anchor resolution,
 * through the library and through the CLI process. Same-run baselines: bare readFile, and readFile +
 * gray-matter (js-yaml) + JSON.stringify on the same files. Rounds are interleaved so load changes on
 * the shared box hit every variant alike. Run: npx tsx bench/check.ts [--quick]
 */
import { readFile, mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import matter from "gray-matter";
import { openKnowledgeBase } from "../src/index.js";
import { listEntryFiles, mapLimit } from "../src/store/files.js";
import { loadKnowledge } from "../src/store/load.js";
import { benchArgs, log } from "./lib/args.js";
import { cliIn } from "./lib/cli-path.js";
import { writeCorpus } from "./lib/corpus.js";
import { runProcess } from "./lib/process.js";
import { fmt, goalTable, table, writeResults, type GoalRow } from "./lib/report.js";
import { peakRssMb, rssDuring } from "./lib/rss.js";
import { median } from "./lib/stats.js";
import { timed } from "./lib/timing.js";

const { quick } = benchArgs();
const ENTRIES = quick ? 2_000 : 10_000;
const ROUNDS = 2;
const CLI_RUNS = 1;
/** Entries parsed once before measuring, to warm the JIT. */
const WARMUP = 1_000;
const GOAL_PER_SECOND = 2_000;
const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const CLI = cliIn(path.join(REPO, "dist"));

type Variant = { name: string; run: () => Promise<number> };

async function main(): Promise<void> {
  const root = await mkdtemp(path.join(os.tmpdir(), "cairn-bench-check-"));
  try {
    log(`generating ${ENTRIES} entries and their source tree in ${root}`);
    const corpus = await writeCorpus(root, { entries: ENTRIES });
    const kb = await openKnowledgeBase({ root, embedder: null });
    const cold = async () => {
      await rm(path.join(root, ".cairn"), { recursive: true, force: true });
      return openKnowledgeBase({ root, embedder: null });
    };
    const files = await listEntryFiles(kb.layout);
    if (files.length !== ENTRIES) throw new Error(`listed ${files.length} entry files, expected ${ENTRIES}`);

    const variants: Variant[] = [
      {
        name: "baseline: readFile only",
        run: async () => (await mapLimit(files, 16, (f) => readFile(f.abs))).length,
      },
      {
        name: "baseline: readFile + gray-matter + JSON.stringify",
        run: async () => {
          // Options passed so gray-matter's content cache cannot serve repeated rounds.
          const out = await mapLimit(files, 16, async (f) => JSON.stringify(matter(await readFile(f.abs, "utf8"), {}).data).length);
          return out.length;
        },
      },
      {
        name: "parse (loadKnowledge: read + parseEntry + ids)",
        run: async () => (await loadKnowledge(kb.layout, { files, today: kb.today() })).entries.length,
      },
      // Cold: no .cairn/ (a fresh clone, CI): every file parsed, every rule run. Warm: the .cairn/ of the last check,
      // every file still read and hashed, unchanged ones keep their results.
      {
        name: "parse + validate (kb.check, anchors off, no .cairn/)",
        run: async () => (await (await cold()).check({ anchors: false })).files,
      },
      {
        name: "cairn check (kb.check, anchors resolved, no .cairn/)",
        run: async () => {
          const report = await (await cold()).check();
          if (report.errors) throw new Error(`generated corpus has ${report.errors} check errors, e.g. ${report.diagnostics[0]?.message}`);
          return report.files;
        },
      },
      {
        name: "cairn check (kb.check, anchors resolved, .cairn/ of the last check)",
        run: async () => {
          const warm = await openKnowledgeBase({ root, embedder: null });
          await warm.check();
          return (await warm.check()).files;
        },
      },
    ];

    // Warm the page cache (the cheap baselines read every file) and the JIT (a partial load) before measuring.
    for (const v of variants.slice(0, 2)) await v.run();
    await loadKnowledge(kb.layout, { files: files.slice(0, WARMUP), today: kb.today() });
    const samples = new Map<string, Array<{ ms: number; cpuMs: number }>>(variants.map((v) => [v.name, []]));
    for (let round = 0; round < ROUNDS; round++) {
      log(`round ${round + 1}/${ROUNDS}`);
      // Each round starts at a different variant, so no variant always follows the same one.
      for (const v of [...variants.slice(round % variants.length), ...variants.slice(0, round % variants.length)]) {
        const t = await timed(v.run);
        if (t.value !== ENTRIES) throw new Error(`${v.name} handled ${t.value} entries, expected ${ENTRIES}`);
        samples.get(v.name)!.push({ ms: t.ms, cpuMs: t.cpuMs });
      }
    }
    const rss = await rssDuring(() => kb.check());
    const figures = variants.map((v) => {
      const s = samples.get(v.name)!;
      const ms = median(s.map((x) => x.ms));
      const cpuMs = median(s.map((x) => x.cpuMs));
      return { name: v.name, ms, cpuMs, perSecond: (ENTRIES / ms) * 1000, perCpuSecond: (ENTRIES / cpuMs) * 1000 };
    });
    const byName = (prefix: string) => figures.find((f) => f.name.startsWith(prefix))!;
    const grayMatter = byName("baseline: readFile + gray-matter");

    log("timing the CLI process (`node dist/bin/cairn.js check --json`)");
    const nodeStart = [];
    const cliRuns = [];
    for (let i = 0; i < CLI_RUNS; i++) {
      nodeStart.push((await runProcess(process.execPath, ["-e", ""])).ms);
      const run = await runProcess(process.execPath, [CLI, "check", "--json", "--root", root]);
      if (run.code !== 0) throw new Error(`cairn check exited ${run.code}: ${run.stderr.slice(0, 500)}`);
      const parsed = JSON.parse(run.stdout) as { errors: number };
      if (parsed.errors !== 0) throw new Error(`cairn check reported ${parsed.errors} errors on the generated corpus`);
      cliRuns.push(run.ms);
    }
    const cliMs = median(cliRuns);
    const nodeMs = median(nodeStart);
    const cli = { ms: cliMs, perSecond: (ENTRIES / cliMs) * 1000, nodeStartMs: nodeMs, perSecondWithoutStart: (ENTRIES / Math.max(1, cliMs - nodeMs)) * 1000 };

    const validate = byName("parse + validate");
    const anchors = byName("cairn check (kb.check, anchors resolved, no");
    const warmCheck = byName("cairn check (kb.check, anchors resolved, .cairn");
    const parse = byName("parse (");
    const ratio = (f: { ms: number }) => `${fmt(f.ms / grayMatter.ms)}× gray-matter time`;
    const goals: GoalRow[] = [
      { metric: `parse + validate, ${ENTRIES} entries (kb.check, anchors off, no .cairn/)`, goal: `≥ ${fmt(GOAL_PER_SECOND)}/s`, measured: `${fmt(validate.perSecond)}/s (${fmt(validate.perCpuSecond)}/CPU-s)`, baseline: ratio(validate), pass: validate.perSecond >= GOAL_PER_SECOND },
      { metric: "parse only (read + parseEntry)", goal: "—", measured: `${fmt(parse.perSecond)}/s`, baseline: ratio(parse), pass: null },
      { metric: "cairn check with anchor resolution (library, no .cairn/: a fresh clone, CI)", goal: "—", measured: `${fmt(anchors.perSecond)}/s`, baseline: ratio(anchors), pass: null },
      { metric: "the same with the .cairn/ of the last check (every file read and hashed)", goal: "—", measured: `${fmt(warmCheck.perSecond)}/s`, baseline: ratio(warmCheck), pass: null },
      { metric: "cairn check with anchors (CLI process, incl. start)", goal: "—", measured: `${fmt(cli.perSecond)}/s (${fmt(cli.ms / 1000)} s)`, baseline: `node start ${fmt(nodeMs)} ms; ${fmt(cli.perSecondWithoutStart)}/s without it`, pass: null },
      { metric: "baseline: readFile + gray-matter + JSON.stringify", goal: "—", measured: `${fmt(grayMatter.perSecond)}/s`, baseline: "1×", pass: null },
    ];

    console.log(`\n## check — ${ENTRIES} generated entries, ${corpus.sources.length} source files${quick ? " (quick)" : ""}\n`);
    console.log(goalTable(goals));
    console.log("\nMedian of %d interleaved rounds (rotated order):\n", ROUNDS);
    console.log(table(figures.map((f) => ({ variant: f.name, "wall ms": f.ms, "CPU ms": f.cpuMs, "entries/s": f.perSecond, "× gray-matter": f.ms / grayMatter.ms }))));
    console.log(`\nRSS during kb.check: ${fmt(rss.beforeMb)} MB before, ${fmt(rss.peakMb)} MB peak (+${fmt(rss.growthMb)} MB); process peak ${fmt(peakRssMb())} MB`);
    const file = await writeResults("check", goals, {
      quick,
      entries: ENTRIES,
      sourceFiles: corpus.sources.length,
      rounds: ROUNDS,
      variants: figures,
      cli: { ...cli, runs: cliRuns, nodeStartRuns: nodeStart },
      rssMb: { before: rss.beforeMb, peak: rss.peakMb, growth: rss.growthMb, processPeak: peakRssMb() },
    });
    log(`wrote ${path.relative(REPO, file)}`);
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

await main();
