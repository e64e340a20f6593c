/**
 * Anchor throughput: parse and resolve 10,000 generated evidence anchors over a temp tree of a few
 * hundred files (symbols resolved to their definitions). Baseline measured in the same run: a naive
 * resolver with no caches (stat, read, split and a word regex per anchor; tinyglobby per glob).
 * Drift: 40 lines are inserted above half of the anchored functions; every moved anchor must be
 * reported with its new range, no unmoved one, and `--fix` must leave nothing to report.
 * Run: npm run bench -- anchors
 */
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { glob } from "tinyglobby";
import { createAnchorResolver } from "../src/check/anchors.js";
import { parseAnchors } from "../src/entry/anchors.js";
import type { Anchor } from "../src/entry/types.js";
import { random } from "./lib/corpus.js";
import { planAnchorEdits, applyAnchorEdits } from "../src/anchors/fix.js";
import { goalTable, table as mdTable, writeResults, type GoalRow } from "./lib/report.js";

const DIRS = 30;
const FILES_PER_DIR = 10;
const ANCHORS = 10_000;
const NAIVE_SAMPLE = 1_000;


type Tree = { root: string; files: Array<{ rel: string; lines: number; symbols: string[] }> };

async function makeTree(rand: () => number): Promise<Tree> {
  const root = await mkdtemp(path.join(os.tmpdir(), "cairn-bench-anchors-"));
  const files: Tree["files"] = [];
  for (let d = 0; d < DIRS; d++) {
    for (let f = 0; f < FILES_PER_DIR; f++) {
      const rel = `pkg${d}/src/mod${f}.ts`;
      const functions = 5 + Math.floor(rand() * 40);
      const body: string[] = [];
      const symbols: string[] = [];
      for (let k = 0; k < functions; k++) {
        const name = `handle${d}_${f}_${k}`;
        symbols.push(name);
        body.push(`export function ${name}(input: string): string {`, "  const value = input.trim();", "  return value + String(input.length);", "}", "");
      }
      await mkdir(path.join(root, path.dirname(rel)), { recursive: true });
      await writeFile(path.join(root, rel), body.join("\n"));
      files.push({ rel, lines: body.length - 1, symbols }); // the text ends with "\n"
    }
  }
  return { root, files };
}

/** Evidence lines in the proportions a real knowledge base might have, including broken ones. */
function makeEvidence(tree: Tree, rand: () => number): string[] {
  const lines: string[] = [];
  const pick = <T>(list: T[]): T => list[Math.floor(rand() * list.length)]!;
  for (let i = 0; i < ANCHORS; i++) {
    const file = pick(tree.files);
    const start = 1 + Math.floor(rand() * file.lines);
    const end = Math.min(file.lines + (rand() < 0.1 ? 5 : 0), start + Math.floor(rand() * 20));
    const dir = file.rel.split("/")[0]!;
    const r = rand();
    if (r < 0.4) lines.push(`- ${file.rel}:${start}-${Math.max(start, end)} — range`);
    else if (r < 0.6) lines.push(`- \`${file.rel}:${start}\` ${pick(file.symbols)}() — symbol`);
    else if (r < 0.7) lines.push(`- ${dir}/src/*.ts — glob`);
    else if (r < 0.8) lines.push(`- ${dir}/**/*.ts, ${pick(file.symbols)}() — glob with symbol`);
    else if (r < 0.9) lines.push(`- ${dir}/src/missing${i % 50}.ts:3 — missing path`);
    else lines.push(`- ${file.rel}:${file.lines + 1 + (i % 7)} — past the end`);
  }
  return lines;
}

/** The obvious implementation: no caches, every anchor stats and reads its files. Returns 0 or 1 problem per check. */
async function naiveResolve(root: string, anchor: Anchor): Promise<number> {
  if (!anchor.path) return 0;
  const files = anchor.glob ? await glob(anchor.path, { cwd: root, ignore: ["node_modules/**", ".git/**"] }) : [anchor.path];
  if (files.length === 0) return 1;
  let longEnough = anchor.endLine === undefined;
  let hasSymbol = anchor.symbol === undefined;
  for (const rel of files) {
    try {
      await stat(path.join(root, rel));
    } catch {
      return 1;
    }
    const text = await readFile(path.join(root, rel), "utf8");
    const lines = text.split("\n").length - (text.endsWith("\n") ? 1 : 0);
    if ((anchor.endLine ?? 0) <= lines) longEnough = true;
    if (anchor.symbol && new RegExp(`\\b${anchor.symbol.split(/\.|::/).pop()}\\b`).test(text)) hasSymbol = true;
  }
  return (longEnough ? 0 : 1) + (hasSymbol ? 0 : 1);
}

async function time<T>(fn: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const t0 = performance.now();
  const value = await fn();
  return { ms: performance.now() - t0, value };
}

async function main(): Promise<void> {
  const rand = random(42);
  const tree = await makeTree(rand);
  try {
    const evidence = makeEvidence(tree, rand);
    const text = evidence.join("\n");
    const parsed = await time(async () => parseAnchors(text, 1));
    const anchors = parsed.value;
    if (anchors.length !== ANCHORS) throw new Error(`parsed ${anchors.length} anchors, expected ${ANCHORS}`);

    const resolver = createAnchorResolver(tree.root);
    const cold = await time(async () => {
      let n = 0;
      for (const a of anchors) n += (await resolver.resolve(a, "knowledge/x.md")).length;
      return n;
    });
    const warm = await time(async () => {
      let n = 0;
      for (const a of anchors) n += (await resolver.resolve(a, "knowledge/x.md")).length;
      return n;
    });
    const concurrent = await time(async () => {
      const fresh = createAnchorResolver(tree.root);
      const all = await Promise.all(anchors.map((a) => fresh.resolve(a, "knowledge/x.md")));
      return all.reduce((n, d) => n + d.length, 0);
    });
    const sample = anchors.slice(0, NAIVE_SAMPLE);
    // The naive resolver knows no definitions: compare errors only (cairn also warns about symbols outside their cited lines).
    const ours = (await Promise.all(sample.map((a) => resolver.resolve(a, "knowledge/x.md")))).reduce((n, d) => n + d.filter((x) => x.severity === "error").length, 0);
    const naive = await time(async () => {
      let n = 0;
      for (const a of sample) n += await naiveResolve(tree.root, a);
      return n;
    });

    const rate = (count: number, ms: number): number => Math.round((count / ms) * 1000);
    const naiveRate = rate(sample.length, naive.ms);
    const rows = [
      { run: "parse (parseAnchors, one 10k-item section)", anchors: ANCHORS, ms: parsed.ms, diagnostics: undefined },
      { run: "resolve, cold resolver, sequential", anchors: ANCHORS, ms: cold.ms, diagnostics: cold.value },
      { run: "resolve, warm resolver (second pass)", anchors: ANCHORS, ms: warm.ms, diagnostics: warm.value },
      { run: "resolve, cold resolver, all concurrent", anchors: ANCHORS, ms: concurrent.ms, diagnostics: concurrent.value },
      { run: `baseline: naive, no caches (first ${NAIVE_SAMPLE})`, anchors: NAIVE_SAMPLE, ms: naive.ms, diagnostics: naive.value },
    ].map((r, i) => ({ ...r, perSecond: rate(r.anchors, r.ms), vsNaive: i === 0 ? undefined : rate(r.anchors, r.ms) / naiveRate }));

    console.log(`\n## Evidence anchors: ${ANCHORS} anchors over ${tree.files.length} files\n`);
    console.log("| run | anchors | ms | anchors/s | × naive | diagnostics |");
    console.log("|---|---:|---:|---:|---:|---:|");
    for (const r of rows) {
      console.log(`| ${r.run} | ${r.anchors} | ${r.ms.toFixed(0)} | ${r.perSecond.toLocaleString("en")} | ${r.vsNaive?.toFixed(1) ?? "–"} | ${r.diagnostics ?? "–"} |`);
    }
    const drift = await measureDrift(tree, rand);
    const goals: GoalRow[] = [
      { metric: `resolve ${ANCHORS.toLocaleString("en")} anchors (definitions), cold resolver`, goal: "—", measured: `${rows[1]!.perSecond.toLocaleString("en")} anchors/s`, baseline: `${(rows[1]!.vsNaive ?? 0).toFixed(1)}× the naive resolver (${naiveRate.toLocaleString("en")}/s)`, pass: null },
      { metric: `moved functions reported with their new range (${drift.moved} moved of ${drift.anchors})`, goal: "100%", measured: `${drift.reportedMoved}/${drift.moved}`, baseline: `${drift.falseAlarms} false alarms on ${drift.anchors - drift.moved} unmoved`, pass: drift.reportedMoved === drift.moved && drift.falseAlarms === 0 },
      { metric: "after `check --fix`, anchors still reported", goal: "0", measured: String(drift.afterFix), pass: drift.afterFix === 0 },
    ];
    console.log(`\n${goalTable(goals)}\n\n${mdTable(rows.map((r) => ({ run: r.run, anchors: r.anchors, ms: Math.round(r.ms), perSecond: r.perSecond, vsNaive: r.vsNaive === undefined ? "–" : r.vsNaive.toFixed(1) })))}`);
    const out = await writeResults("anchors", goals, { files: tree.files.length, anchors: ANCHORS, tables: { throughput: rows.map((r) => ({ run: r.run, anchors: r.anchors, ms: Math.round(r.ms), "anchors/s": r.perSecond, "× naive": r.vsNaive === undefined ? "–" : r.vsNaive.toFixed(1) })) } });
    console.log(`\nOn the same ${NAIVE_SAMPLE} anchors: cairn reports ${ours} errors, the naive resolver ${naive.value}.`);
    if (ours !== naive.value) console.log("WARNING: the two resolvers disagree on the sample.");
    console.log(`\nwrote ${path.relative(process.cwd(), out)}`);
  } finally {
    await rm(tree.root, { recursive: true, force: true });
  }
}

/** Insert 40 lines above every second anchored function's file position and count what check reports. */
async function measureDrift(tree: Tree, rand: () => number): Promise<{ anchors: number; moved: number; reportedMoved: number; falseAlarms: number; afterFix: number }> {
  const COUNT = 1000;
  const picks: Array<{ file: Tree["files"][number]; k: number }> = [];
  for (let i = 0; i < COUNT; i++) {
    const file = tree.files[Math.floor(rand() * tree.files.length)]!;
    picks.push({ file, k: Math.floor(rand() * file.symbols.length) });
  }
  const evidence = picks.map(({ file, k }) => `- ${file.rel}:${k * 5 + 1}-${k * 5 + 4}, ${file.symbols[k]}() — drift`).join("\n");
  // Files in even directories get 40 lines inserted at the top: every function in them moves by 40.
  const shifted = new Set(tree.files.filter((f) => Number(/pkg(\d+)/.exec(f.rel)![1]) % 2 === 0).map((f) => f.rel));
  for (const rel of shifted) {
    const abs = path.join(tree.root, rel);
    await writeFile(abs, `${Array.from({ length: 40 }, (_, i) => `// inserted ${i}`).join("\n")}\n${await readFile(abs, "utf8")}`);
  }
  const anchors = parseAnchors(evidence, 1);
  const resolver = createAnchorResolver(tree.root);
  const resolved = await Promise.all(anchors.map((a) => resolver.locate(a)));
  let reportedMoved = 0;
  let falseAlarms = 0;
  resolved.forEach((r, i) => {
    const moved = shifted.has(picks[i]!.file.rel);
    const fix = r.problems.find((p) => p.rule === "anchor-moved")?.fix?.range;
    const k = picks[i]!.k;
    if (moved && fix?.start === k * 5 + 41 && fix.end === k * 5 + 44) reportedMoved++;
    if (!moved && r.problems.length) falseAlarms++;
  });
  const edits = planAnchorEdits("k.md", resolved);
  const fixed = applyAnchorEdits(evidence, edits);
  if (!fixed.ok) throw new Error(fixed.reason);
  const again = createAnchorResolver(tree.root);
  let afterFix = 0;
  for (const a of parseAnchors(fixed.text, 1)) afterFix += (await again.resolve(a, "k.md")).length;
  return { anchors: COUNT, moved: picks.filter((p) => shifted.has(p.file.rel)).length, reportedMoved, falseAlarms, afterFix };
}

await main();
