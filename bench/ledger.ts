/**
 * Ledger benchmark: read + projection of 100k events, append throughput, each against a bare
 * Node baseline measured in the same run. Run: `npx tsx bench/ledger.ts`.
 */
import { appendFile, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { appendEvents, type NewEvent } from "../src/ledger/append.js";
import { openLedger } from "../src/ledger/index.js";
import { projectLedger } from "../src/ledger/projections.js";
import { readLedger } from "../src/ledger/read.js";
import { random as rng } from "./lib/corpus.js";

const ENTRIES = 2_000;
const RUNS = 5_000;
const EVENTS_PER_RUN = 20; // 8 injected, 11 confirmed, 1 lifecycle event => 100k events
const ITERATIONS = 7;
const SINGLE_APPENDS = 2_000;
const AGENTS = ["security", "performance", "correctness", "style"];


function generate(): NewEvent[] {
  const random = rng(42);
  const pick = (n: number) => Math.floor(random() * n);
  const entry = () => `entry-${String(pick(ENTRIES)).padStart(4, "0")}-some-descriptive-slug`;
  const start = Date.parse("2026-01-01T00:00:00Z");
  const span = Date.parse("2026-07-01T00:00:00Z") - start;
  const events: NewEvent[] = [];
  for (let r = 0; r < RUNS; r++) {
    const run = `run-${r}`;
    const t0 = start + Math.floor((span * r) / RUNS);
    const at = (k: number) => new Date(t0 + k * 1_000).toISOString();
    for (let k = 0; k < 8; k++) {
      const agent = AGENTS[k % AGENTS.length] as string;
      const entries = Array.from({ length: 1 + pick(5) }, entry);
      events.push({ type: "injected", run, agent, entries, time: at(k) });
    }
    for (let k = 0; k < 11; k++) {
      const agent = AGENTS[pick(AGENTS.length)] as string;
      const provenance = random() < 0.3 ? "independent" : "primed";
      events.push({ type: "confirmed", run, agent, entry: entry(), provenance, findingHash: "0123456789abcdef", score: random(), time: at(10 + k) });
    }
    const kind = pick(4);
    const e = entry();
    if (kind === 0) events.push({ type: "archived", entry: e, reason: "decayed", run, time: at(30) });
    else if (kind === 1) events.push({ type: "restored", entry: e, reason: "recurred", run, time: at(30) });
    else if (kind === 2) events.push({ type: "manual-confirmed", entry: e, time: at(30) });
    else events.push({ type: "compounded", entry: e, run, agents: ["security", "correctness"], time: at(30) });
  }
  return events;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

/** Baseline: what any reader must do at least — read, split, JSON.parse and keep every line. */
async function bareParse(dir: string): Promise<unknown[]> {
  const values: unknown[] = [];
  for (const name of (await readdir(dir)).sort()) {
    const text = (await readFile(path.join(dir, name))).toString("utf8");
    for (const line of text.split("\n")) if (line.length > 0) values.push(JSON.parse(line));
  }
  return values;
}

type Timing = { wallMs: number; cpuMs: number };

/**
 * Run the measures in turns (so machine load hits all alike) and keep each one's median wall
 * time and median CPU time (user + system of this process: less sensitive to a loaded box, but
 * it also counts GC helper threads).
 */
async function interleaved(measures: Record<string, () => Promise<unknown>>, iterations = ITERATIONS): Promise<Record<string, Timing>> {
  const wall: Record<string, number[]> = {};
  const cpu: Record<string, number[]> = {};
  for (let i = 0; i < iterations; i++) {
    for (const [name, fn] of Object.entries(measures)) {
      const c = process.cpuUsage();
      const t = performance.now();
      await fn();
      (wall[name] ??= []).push(performance.now() - t);
      const d = process.cpuUsage(c);
      (cpu[name] ??= []).push((d.user + d.system) / 1000);
    }
  }
  return Object.fromEntries(Object.keys(measures).map((name) => [name, { wallMs: median(wall[name] ?? []), cpuMs: median(cpu[name] ?? []) }]));
}

async function main(): Promise<void> {
  const root = await mkdtemp(path.join(os.tmpdir(), "cairn-bench-ledger-"));
  try {
    const ledgerDir = path.join(root, "ledger");
    const events = generate();
    const entries = Array.from({ length: ENTRIES }, (_, i) => ({
      id: `entry-${String(i).padStart(4, "0")}-some-descriptive-slug`,
      lastConfirmed: i % 3 === 0 ? "2026-03-15" : "2026-01-10",
    }));

    // Append, batched (1,000 events per call), as an import or simulation would.
    let t = performance.now();
    for (let i = 0; i < events.length; i += 1_000) await appendEvents(ledgerDir, events.slice(i, i + 1_000));
    const batchedMs = performance.now() - t;

    // Append, one event per call (the real-world pattern), against a bare appendFile of a line.
    const singleDir = path.join(root, "single");
    const sample = events.slice(0, SINGLE_APPENDS);
    t = performance.now();
    for (const event of sample) await appendEvents(singleDir, [event]);
    const singleMs = performance.now() - t;
    const bareDir = path.join(root, "bare");
    await mkdir(bareDir);
    const bareLines = sample.map((e) => JSON.stringify({ v: 1, eventId: "01HXXXXXXXXXXXXXXXXXXXXXXX", ...e }) + "\n");
    t = performance.now();
    for (const line of bareLines) await appendFile(path.join(bareDir, "x.jsonl"), line);
    const bareAppendMs = performance.now() - t;

    // Read + project, cold (fresh parse each time) vs the bare JSON.parse of every line.
    const total = (await bareParse(ledgerDir)).length;
    let read = await readLedger(ledgerDir);
    let views = projectLedger(read.events, entries);
    const ledger = openLedger(ledgerDir);
    await ledger.read();
    const ms = await interleaved({
      bareParse: () => bareParse(ledgerDir),
      read: async () => {
        read = await readLedger(ledgerDir);
      },
      project: async () => {
        views = projectLedger(read.events, entries);
      },
      readAndProject: async () => projectLedger((await readLedger(ledgerDir)).events, entries),
      cachedRead: () => ledger.read(),
    });
    const get = (name: string) => ms[name] as Timing;
    const bare = get("bareParse");
    const rows: Array<[string, Timing]> = [
      ["baseline: readFile + split + JSON.parse per line", bare],
      ["readLedger (validate, de-dup, sort)", get("read")],
      [`projectLedger (${ENTRIES} entries)`, get("project")],
      ["read + project (goal <= 200 ms)", get("readAndProject")],
      ["Ledger.read() unchanged (cached)", get("cachedRead")],
    ];
    const decayed = [...views.values()].filter((v) => v.unconfirmedRuns >= 10).length;
    const results = {
      events: read.events.length,
      linesOnDisk: total,
      warnings: read.warnings.length,
      entries: ENTRIES,
      runs: RUNS,
      entriesAtDecay: decayed,
      timings: ms,
      readAndProjectVsBareParse: { wall: get("readAndProject").wallMs / bare.wallMs, cpu: get("readAndProject").cpuMs / bare.cpuMs },
      readAndProjectGoalMs: 200,
      append: {
        batchedEventsPerSecond: events.length / (batchedMs / 1000),
        singleEventsPerSecond: SINGLE_APPENDS / (singleMs / 1000),
        bareAppendFileLinesPerSecond: SINGLE_APPENDS / (bareAppendMs / 1000),
        singleVsBareAppendFile: bareAppendMs / singleMs,
      },
      loadAverage: os.loadavg(),
      node: process.version,
      cpus: os.cpus().length,
    };

    const f = (x: number) => (x < 10 ? x.toFixed(2) : x.toFixed(1));
    console.log(`# Ledger benchmark (${results.events.toLocaleString("en")} events, ${ENTRIES} entries, ${RUNS} runs; median of ${ITERATIONS})\n`);
    console.log(`Load average ${os.loadavg().map((x) => x.toFixed(1)).join(" ")} on ${os.cpus().length} CPUs: compare ratios, not absolute times.\n`);
    console.log("| measure | wall (ms) | wall vs baseline | CPU (ms) | CPU vs baseline |");
    console.log("|---|---:|---:|---:|---:|");
    for (const [name, t] of rows) {
      console.log(`| ${name} | ${f(t.wallMs)} | ${(t.wallMs / bare.wallMs).toFixed(2)}x | ${f(t.cpuMs)} | ${(t.cpuMs / bare.cpuMs).toFixed(2)}x |`);
    }
    console.log("\n| append | events/s | vs baseline |");
    console.log("|---|---:|---:|");
    console.log(`| baseline: fs.appendFile, one line per call | ${Math.round(results.append.bareAppendFileLinesPerSecond)} | 1.00x |`);
    console.log(`| appendEvents, 1 event per call | ${Math.round(results.append.singleEventsPerSecond)} | ${results.append.singleVsBareAppendFile.toFixed(2)}x |`);
    console.log(`| appendEvents, 1,000 events per call | ${Math.round(results.append.batchedEventsPerSecond)} | ${(results.append.batchedEventsPerSecond / results.append.bareAppendFileLinesPerSecond).toFixed(1)}x |`);
    console.log(`\n${decayed} of ${ENTRIES} entries at or past decay (>= 10 unconfirmed runs); ${results.warnings} warnings.`);

    const out = path.join(path.dirname(new URL(import.meta.url).pathname), "results", "ledger.json");
    await mkdir(path.dirname(out), { recursive: true });
    await writeFile(out, JSON.stringify(results, null, 2) + "\n");
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

await main();
