/**
 * Anchor throughput: parse and resolve 10,000 generated evidence anchors over a temp tree of a few
 * hundred files. Baseline measured in the same run: a naive resolver with no caches (stat, read,
 * split and regex per anchor; tinyglobby per glob anchor). Run: npx tsx bench/anchors.ts
 */
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { glob } from "tinyglobby";
import { createAnchorResolver } from "../src/check/anchors.js";
import { parseAnchors } from "../src/entry/anchors.js";
import type { Anchor } from "../src/entry/types.js";
import { random } from "./lib/corpus.js";

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
    const ours = (await Promise.all(sample.map((a) => resolver.resolve(a, "knowledge/x.md")))).reduce((n, d) => n + d.length, 0);
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
    const out = path.join(import.meta.dirname, "results", "anchors.json");
    await mkdir(path.dirname(out), { recursive: true });
    await writeFile(
      out,
      `${JSON.stringify({ bench: "anchors", date: new Date().toISOString(), node: process.version, files: tree.files.length, anchors: ANCHORS, rows }, null, 2)}\n`,
    );
    console.log(`\nOn the same ${NAIVE_SAMPLE} anchors: cairn reports ${ours} problems, the naive resolver ${naive.value}.`);
    if (ours !== naive.value) console.log("WARNING: the two resolvers disagree on the sample.");
    console.log(`\nwrote ${path.relative(process.cwd(), out)}`);
  } finally {
    await rm(tree.root, { recursive: true, force: true });
  }
}

await main();
