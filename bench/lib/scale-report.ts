/**
 * From the measurements of bench/scale.ts to issue 12's goal rows and the README tables: medians,
 * peak RSS, ratios to the same-run baselines, pass or miss. Pure: no I/O.
 */
import { fmt, type GoalRow } from "./report.js";
import type { ColdRun } from "./cold.js";
import type { Goal, Row } from "./scale-rows.js";
import type { ServedWatcher } from "./scale-served.js";
import { median, percentile } from "./stats.js";

/** One cold run as stored in the results (stdout dropped, stderr kept only on failure). */
export type RunRecord = { ms: number; rssMb: number | null; outcome: ColdRun["outcome"]; code: number | null; problem?: string; stderr?: string };

export type RowResult = { runs: RunRecord[] };

/** A cold run as the results keep it. */
export const record = (run: ColdRun, problem?: string): RunRecord => ({
  ms: Math.round(run.ms * 10) / 10,
  rssMb: run.rssMb === null ? null : Math.round(run.rssMb),
  outcome: run.outcome,
  code: run.code,
  ...(problem ? { problem } : {}),
  ...(run.outcome !== "ok" || problem ? { stderr: run.stderr.slice(-4_000) } : {}),
});

export type WarmResult = { outcome: ColdRun["outcome"]; firstMs?: number; search?: number[]; inject?: number[]; rssMb?: number; peakRssMb?: number | null; stderr?: string };

export type SizeMeasurements = {
  entries: number;
  baselines: { node: RunRecord[]; parse: RunRecord[] };
  /** build name → row id → runs. */
  rows: Record<string, Record<string, RowResult>>;
  warm: Record<string, WarmResult>;
  /** The initial `cairn index` of each build's copy (untimed in the rows; here for the record). */
  initialIndex: Record<string, RunRecord>;
  /** Per build: the `cairn watch` that ran the rows of `<build>+watch` (its readiness and its own memory). */
  served?: Record<string, ServedWatcher>;
  /** The generated ledger and archive. */
  ledger?: { events: number; runs: number; byType: Record<string, number> } | null;
  archived?: number;
};

export type Summary = { status: "ok" | "failed" | "timeout" | "missing"; ms: number; rssMb: number | null; runs: number; note?: string };

/** Median wall time over the runs and the highest peak RSS; failed/timeout when any run was. */
export function summarizeRuns(runs: readonly RunRecord[] | undefined): Summary {
  if (!runs?.length) return { status: "missing", ms: Number.NaN, rssMb: null, runs: 0 };
  const bad = runs.find((r) => r.outcome !== "ok" || r.problem);
  const rss = runs.map((r) => r.rssMb).filter((x): x is number => x !== null);
  const summary: Summary = { status: "ok", ms: median(runs.map((r) => r.ms)), rssMb: rss.length ? Math.max(...rss) : null, runs: runs.length };
  if (!bad) return summary;
  if (bad.outcome === "timeout") return { ...summary, status: "timeout", note: `timed out after ${fmtMs(bad.ms)}` };
  const why = bad.problem ?? `exit ${bad.code}: ${(bad.stderr ?? "").trim().split("\n").slice(-2).join(" ").slice(0, 200)}`;
  // A command that exited 0 without doing the work (a verify problem) is a failure too.
  return { ...summary, status: "failed", note: why };
}

export function fmtMs(ms: number): string {
  if (!Number.isFinite(ms)) return "—";
  return ms >= 1_000 ? `${fmt(ms / 1_000, ms >= 100_000 ? 0 : 1)} s` : `${fmt(ms, 0)} ms`;
}

export function fmtMb(mb: number | null | undefined): string {
  if (mb === null || mb === undefined || !Number.isFinite(mb)) return "—";
  return mb >= 1_024 ? `${fmt(mb / 1_024, 1)} GB` : `${fmt(mb, 0)} MB`;
}

const GB = 1_024;
const k = (n: number) => (n >= 1_000 ? `${fmt(n / 1_000, n % 1_000 ? 1 : 0)}k` : String(n));

function goalText(goal: Goal, baselines: { node: number; parse: number }): string {
  if (goal.base === "none") return "—";
  return goal.base === "node" ? `≤ ${goal.factor}× \`node -e ""\` (${fmtMs(goal.factor * baselines.node)})` : `≤ ${goal.factor}× parse-all (${fmtMs(goal.factor * baselines.parse)})`;
}

function measuredText(s: Summary): string {
  if (s.status === "missing") return "not measured";
  if (s.status === "timeout") return `**timed out** (${s.note})`;
  const figure = `${fmtMs(s.ms)}, peak ${fmtMb(s.rssMb)}${s.runs < 5 ? ` (${s.runs} run${s.runs === 1 ? "" : "s"})` : ""}`;
  return s.status === "failed" ? `**failed** (${s.note}); ${figure}` : figure;
}

export type Baselines = { node: number; parse: number };

export function baselinesOf(size: SizeMeasurements): Baselines {
  return { node: summarizeRuns(size.baselines.node).ms, parse: summarizeRuns(size.baselines.parse).ms };
}

/** Goal rows at the reference size (10k): each command against its baseline. */
export function referenceRows(rows: readonly Row[], size: SizeMeasurements, build: string, tag: string): GoalRow[] {
  const b = baselinesOf(size);
  return rows.map((row) => {
    const s = summarizeRuns(size.rows[build]?.[row.id]?.runs);
    const ratioNode = s.ms / b.node;
    const ratioParse = s.ms / b.parse;
    const ok = s.status === "ok";
    const pass = row.goal.base === "none" || !ok ? (ok ? null : false) : s.ms <= row.goal.factor * (row.goal.base === "node" ? b.node : b.parse);
    return {
      metric: `${row.label} at ${k(size.entries)}${tag}`,
      goal: goalText(row.goal, b),
      measured: measuredText(s),
      baseline: ok ? `${fmt(ratioNode)}× node, ${fmt(ratioParse)}× parse-all` : "",
      pass,
    };
  });
}

/** Goal rows at a larger size: ≤ 10× the reference size's time and peak RSS ≤ 1 GB. */
export function scaledRows(rows: readonly Row[], size: SizeMeasurements, reference: SizeMeasurements | undefined, build: string, tag: string): GoalRow[] {
  const factor = reference ? size.entries / reference.entries : 10;
  return rows.map((row) => {
    const s = summarizeRuns(size.rows[build]?.[row.id]?.runs);
    const r = reference ? summarizeRuns(reference.rows[build]?.[row.id]?.runs) : undefined;
    const ratio = r && r.status === "ok" ? s.ms / r.ms : Number.NaN;
    const ok = s.status === "ok";
    const rssOk = s.rssMb !== null && s.rssMb <= GB;
    return {
      metric: `${row.label} at ${k(size.entries)}${tag}`,
      goal: `≤ ${fmt(factor)}× its ${reference ? k(reference.entries) : "10k"} time; peak RSS ≤ 1 GB`,
      measured: measuredText(s),
      baseline: Number.isFinite(ratio) ? `${fmt(ratio)}× its ${k(reference!.entries)} time (${fmtMs(r!.ms)})` : "",
      pass: ok ? Number.isFinite(ratio) && ratio <= factor && rssOk : false,
    };
  });
}

/** The first `cairn index` of each size (one run, on the copy the rows then use): a command of its own, with peak RSS ≤ 1 GB from 100k on. */
export function firstIndexRows(sizes: readonly SizeMeasurements[], build: string): GoalRow[] {
  return sizes.map((size) => {
    const s = summarizeRuns(size.initialIndex[build] ? [size.initialIndex[build]] : undefined);
    const ok = s.status === "ok";
    const large = size.entries >= 100_000;
    return {
      metric: `first \`cairn index\` (no \`.cairn/\`) at ${k(size.entries)}`,
      goal: large ? "peak RSS ≤ 1 GB" : "—",
      measured: measuredText(s),
      baseline: ok ? `${fmt((size.entries / s.ms) * 1_000, 0)} entries/s` : "",
      pass: !ok ? false : large ? s.rssMb !== null && s.rssMb <= GB : null,
    };
  });
}

export function warmRows(sizes: readonly SizeMeasurements[], build: string, tag: string): GoalRow[] {
  const out: GoalRow[] = [];
  const small = sizes[0];
  const large = sizes.length > 1 ? sizes.at(-1) : undefined;
  const failed = (w: WarmResult | undefined) => !w || w.outcome !== "ok" || !w.search?.length;
  const failure = (w: WarmResult | undefined) => (w ? `**${w.outcome}** ${(w.stderr ?? "").trim().split("\n").slice(-1)[0]?.slice(0, 160) ?? ""}` : "not measured");
  if (small) {
    const w = small.warm[build];
    out.push({
      metric: `warm library \`kb.inject\` p50 at ${k(small.entries)}${tag}`,
      goal: "≤ 20 ms",
      measured: failed(w) ? failure(w) : `p50 ${fmtMs(median(w!.inject!))}, p95 ${fmtMs(percentile(w!.inject!, 95))}${w!.inject!.length > 40 ? ` (first 40 calls: p50 ${fmtMs(median(w!.inject!.slice(0, 40)))})` : ""}`,
      baseline: failed(w) ? "" : `${w!.inject!.length} calls after 3 warm-up`,
      pass: failed(w) ? false : median(w!.inject!) <= 20,
    });
    out.push({
      metric: `warm library \`kb.search\` at ${k(small.entries)}${tag}`,
      goal: "—",
      measured: failed(w) ? failure(w) : `p50 ${fmtMs(median(w!.search!))}, p95 ${fmtMs(percentile(w!.search!, 95))}`,
      baseline: failed(w) ? "" : `first search after open ${fmtMs(w!.firstMs ?? Number.NaN)}`,
      pass: failed(w) ? false : null,
    });
  }
  if (large) {
    const w = large.warm[build];
    out.push({
      metric: `warm library \`kb.search\` p95 at ${k(large.entries)}${tag}`,
      goal: "≤ 50 ms",
      measured: failed(w) ? failure(w) : `p95 ${fmtMs(percentile(w!.search!, 95))}, p50 ${fmtMs(median(w!.search!))}`,
      baseline: failed(w) ? "" : `first search after open ${fmtMs(w!.firstMs ?? Number.NaN)}`,
      pass: failed(w) ? false : percentile(w!.search!, 95) <= 50,
    });
    out.push({
      metric: `RSS of a warm library process at ${k(large.entries)}${tag}`,
      goal: "≤ 1 GB",
      measured: failed(w) ? failure(w) : `${fmtMb(w!.rssMb)} after the queries, peak ${fmtMb(w!.peakRssMb)}`,
      baseline: "",
      pass: failed(w) ? false : (w!.peakRssMb ?? w!.rssMb ?? Infinity) <= GB,
    });
  }
  return out;
}

/** The before/after table: one line per command and size, the base build's and the current build's figures. */
export function compareTable(rows: readonly Row[], sizes: readonly SizeMeasurements[], builds: readonly string[]): Array<Record<string, string>> {
  const out: Array<Record<string, string>> = [];
  for (const size of sizes) {
    const b = baselinesOf(size);
    out.push({ command: `**${k(size.entries)} entries** — baselines: \`node -e ""\` ${fmtMs(b.node)}, parse-all ${fmtMs(b.parse)}`, ...Object.fromEntries(builds.map((name) => [name, ""])) });
    for (const row of rows) {
      const cells: Record<string, string> = { command: row.label };
      for (const name of builds) {
        const s = summarizeRuns(size.rows[name]?.[row.id]?.runs);
        cells[name] = s.status === "ok" ? `${fmtMs(s.ms)} · ${fmtMb(s.rssMb)} (${fmt(s.ms / b.node)}× node)` : measuredText(s);
      }
      out.push(cells);
    }
  }
  return out;
}
