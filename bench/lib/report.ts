/** Goal tables in markdown and machine-readable results in bench/results/<name>.json. */
import { mkdir, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const RESULTS_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), "..", "results");

/** One line of a bench's goal table. */
export type GoalRow = {
  /** What was measured, e.g. "parse + validate, 10k entries". */
  metric: string;
  /** The goal as text, e.g. "≥ 2,000/s"; "—" for context figures without a goal. */
  goal: string;
  /** The measured figure as text, with its unit. */
  measured: string;
  /** Same-run baseline or ratio that puts the figure in context. Default none. */
  baseline?: string;
  /** true / false against the goal; null when there is no goal or it could not be measured. */
  pass: boolean | null;
};

export type Machine = { node: string; cpus: number; loadavg: number[]; date: string };

export function machine(): Machine {
  return { node: process.version, cpus: os.cpus().length, loadavg: os.loadavg().map((x) => Math.round(x * 100) / 100), date: new Date().toISOString() };
}

export function passMark(pass: boolean | null): string {
  return pass === null ? "—" : pass ? "✅ pass" : "❌ miss";
}

/** A markdown table of goal rows. */
export function goalTable(rows: readonly GoalRow[]): string {
  const lines = ["| metric | goal | measured | baseline / ratio | pass |", "|---|---|---|---|---|"];
  for (const r of rows) lines.push(`| ${cell(r.metric)} | ${cell(r.goal)} | ${cell(r.measured)} | ${cell(r.baseline ?? "")} | ${passMark(r.pass)} |`);
  return lines.join("\n");
}

/** A markdown table from plain records (column order from the first record). */
export function table(records: ReadonlyArray<Record<string, unknown>>): string {
  if (!records.length) return "(no rows)";
  const keys = Object.keys(records[0]!);
  const lines = [`| ${keys.join(" | ")} |`, `|${keys.map(() => "---").join("|")}|`];
  for (const r of records) lines.push(`| ${keys.map((k) => cell(format(r[k]))).join(" | ")} |`);
  return lines.join("\n");
}

/** Write `bench/results/<name>.json` with the machine info and the goal rows first; returns the path. */
export async function writeResults(name: string, goals: readonly GoalRow[], data: Record<string, unknown>): Promise<string> {
  await mkdir(RESULTS_DIR, { recursive: true });
  const file = path.join(RESULTS_DIR, `${name}.json`);
  await writeFile(file, `${JSON.stringify({ bench: name, machine: machine(), goals, ...data }, null, 2)}\n`);
  return file;
}

/** `1234.5` → `"1,235"`; ratios and small numbers keep two significant decimals. */
export function fmt(value: number, digits?: number): string {
  if (!Number.isFinite(value)) return String(value);
  const d = digits ?? (Number.isInteger(value) || Math.abs(value) >= 100 ? 0 : Math.abs(value) >= 10 ? 1 : 2);
  return value.toLocaleString("en-US", { minimumFractionDigits: d, maximumFractionDigits: d });
}

function format(value: unknown): string {
  if (typeof value === "number") return fmt(value);
  if (value === undefined || value === null) return "";
  return String(value);
}

function cell(text: string): string {
  return text.replace(/\|/g, "\\|").replace(/\n/g, " ");
}
