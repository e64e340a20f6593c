/**
 * The summary table over bench/results/*.json. Results that carry `goals` (GoalRow[]) are shown as
 * they are; the ledger bench's known fields are mapped to a goal row; any other result shows its
 * `rows` or its top-level numbers, so a new bench appears without changes here.
 */
import { readdir, readFile, stat } from "node:fs/promises";
import path from "node:path";
import { fmt, passMark, type GoalRow } from "./report.js";

export type SummaryRow = GoalRow & { bench: string; fresh: boolean; age: string };

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);
const num = (v: unknown): number | undefined => (typeof v === "number" && Number.isFinite(v) ? v : undefined);

function at(value: unknown, ...keys: string[]): unknown {
  let v = value;
  for (const k of keys) v = isObject(v) ? v[k] : undefined;
  return v;
}

function ledgerRows(data: Json): GoalRow[] {
  const wall = num(at(data, "timings", "readAndProject", "wallMs"));
  const goalMs = num(data.readAndProjectGoalMs);
  const vsBare = num(at(data, "readAndProjectVsBareParse", "wall"));
  const events = num(data.events);
  if (wall === undefined) return [];
  const rows: GoalRow[] = [
    {
      metric: `ledger read + projection, ${events !== undefined ? fmt(events) : "?"} events`,
      goal: goalMs !== undefined ? `≤ ${fmt(goalMs)} ms` : "—",
      measured: `${fmt(wall)} ms`,
      baseline: vsBare !== undefined ? `${fmt(vsBare)}× bare JSON.parse of the same lines` : "",
      pass: goalMs !== undefined ? wall <= goalMs : null,
    },
  ];
  const single = num(at(data, "append", "singleEventsPerSecond"));
  const vsAppend = num(at(data, "append", "singleVsBareAppendFile"));
  if (single !== undefined) rows.push({ metric: "ledger single-event appends", goal: "—", measured: `${fmt(single)}/s`, baseline: vsAppend !== undefined ? `${fmt(vsAppend)}× bare appendFile` : "", pass: null });
  return rows;
}

function genericRows(data: Json): GoalRow[] {
  const rows = Array.isArray(data.rows) ? data.rows.filter(isObject) : [];
  if (rows.length) {
    return rows.slice(0, 8).map((r) => {
      const name = String(r.name ?? r.run ?? r.variant ?? "row").trim();
      const figures = Object.entries(r)
        .filter(([k, v]) => k !== "name" && k !== "run" && num(v) !== undefined)
        .sort(([a], [b]) => priority(a) - priority(b))
        .slice(0, 3)
        .map(([k, v]) => `${k} ${fmt(v as number)}`);
      return { metric: name, goal: "—", measured: figures.join(", "), pass: null };
    });
  }
  const skip = new Set(["machine", "date", "node", "cpus", "loadavg", "loadAverage", "quick", "bench"]);
  const figures = Object.entries(data)
    .filter(([k, v]) => !skip.has(k) && num(v) !== undefined)
    .slice(0, 6)
    .map(([k, v]) => `${k} ${fmt(v as number)}`);
  return figures.length ? [{ metric: "(top-level figures)", goal: "—", measured: figures.join(", "), pass: null }] : [];
}

/** Throughputs and ratios first, then times, then counts. */
function priority(key: string): number {
  if (/per(second|cpusecond)/i.test(key)) return 0;
  if (/^vs|ratio|over/i.test(key)) return 1;
  if (/ms$|p50|p95/i.test(key)) return 2;
  return 3;
}

function ageOf(ms: number): string {
  const minutes = Math.round(ms / 60_000);
  return minutes < 60 ? `${minutes} min` : minutes < 48 * 60 ? `${Math.round(minutes / 60)} h` : `${Math.round(minutes / 1440)} d`;
}

/** Rows for every results file; `fresh` marks files of the benches in `ran` written after `since` (this invocation). */
export async function collectSummary(resultsDir: string, since: number, ran: readonly string[]): Promise<SummaryRow[]> {
  const names = (await readdir(resultsDir).catch(() => [] as string[])).filter((n) => n.endsWith(".json")).sort();
  const out: SummaryRow[] = [];
  for (const name of names) {
    const file = path.join(resultsDir, name);
    const bench = name.replace(/\.json$/, "");
    const mtime = (await stat(file)).mtimeMs;
    const base = { bench, fresh: mtime >= since && ran.includes(bench), age: ageOf(Date.now() - mtime) };
    let data: unknown;
    try {
      data = JSON.parse(await readFile(file, "utf8"));
    } catch (error) {
      out.push({ ...base, metric: "(unreadable results file)", goal: "—", measured: (error as Error).message, pass: null });
      continue;
    }
    if (!isObject(data)) continue;
    const goals = Array.isArray(data.goals) ? (data.goals.filter((g) => isObject(g) && typeof g.metric === "string") as GoalRow[]) : [];
    const rows = goals.length ? goals : bench === "ledger" ? ledgerRows(data) : genericRows(data);
    for (const row of rows.length ? rows : genericRows(data)) out.push({ ...base, ...row });
  }
  return out;
}

export function summaryTable(rows: readonly SummaryRow[]): string {
  const cell = (t: string) => t.replace(/\|/g, "\\|").replace(/\n/g, " ");
  const lines = ["| bench | metric | goal | measured | baseline / ratio | pass | age |", "|---|---|---|---|---|---|---|"];
  for (const r of rows) {
    lines.push(`| ${r.bench} | ${cell(r.metric)} | ${cell(r.goal)} | ${cell(r.measured)} | ${cell(r.baseline ?? "")} | ${passMark(r.pass)} | ${r.fresh ? "this run" : `${r.age} old`} |`);
  }
  return lines.join("\n");
}
