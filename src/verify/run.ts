/**
 * Run an entry's mechanical verify steps in-process: a linear-time regex (RE2) over the tracked
 * files a step names, never a shell, never a command from an entry, within a time and size budget
 * per step. A step passes when its pattern still matches somewhere; it fails when it matches
 * nowhere (the pattern is gone: the problem was likely fixed).
 */
import type { Entry } from "../entry/types.js";
import type { VerifyStepRecord } from "../ledger/events.js";
import type { SearchFiles } from "./files.js";
import { compilePattern, type CompiledPattern } from "./pattern.js";
import { isWide, locateLiterals, type Located } from "./locate.js";
import { verifyHashOf } from "./records.js";
import { planStep } from "./steps.js";
import type { EntryVerification } from "../types/verify.js";

export type VerifyLimits = {
  /** Wall-clock budget of one step, ms. Default 2000. */
  timeMs: number;
  /** Files one step may read. Default 20,000. */
  maxFiles: number;
  /** Bytes one step may read. Default 64 MiB. */
  maxBytes: number;
  /** Larger files are skipped. Default 2 MiB. */
  maxFileBytes: number;
};

export const DEFAULT_VERIFY_LIMITS: VerifyLimits = { timeMs: 2000, maxFiles: 20_000, maxBytes: 64 * 1024 * 1024, maxFileBytes: 2 * 1024 * 1024 };

export type { EntryVerification } from "../types/verify.js";

/** Matches recorded per step. */
const MAX_MATCHES = 5;

/**
 * Verify many entries: every literal of every step is located in one pass over the files the steps
 * search (locate.ts), then each step tests only the files that hold its literals.
 */
export async function verifyEntries(files: SearchFiles, entries: readonly Entry[], limits: VerifyLimits = DEFAULT_VERIFY_LIMITS): Promise<EntryVerification[]> {
  const compile = compileOnce();
  const prepared = await Promise.all(entries.map(async (entry) => Promise.all(entry.verify.steps.map((text, index) => prepareStep(files, text, index, compile)))));
  const located = await locateLiterals(files, prepared.flat().filter((p): p is Runnable => p.kind === "run"), limits.maxBytes);
  return entries.map((entry, e) => {
    const steps = prepared[e]!.map((step) => (step.kind === "done" ? step.record : runPrepared(files, step, limits, located)));
    const result = steps.some((s) => s.result === "failed") ? "failed" : steps.some((s) => s.result === "passed") ? "passed" : "not-mechanical";
    return { id: entry.id, path: entry.path, result, verifyHash: verifyHashOf(entry), line: entry.verify.line, steps };
  });
}

export async function verifyEntry(files: SearchFiles, entry: Entry, limits: VerifyLimits = DEFAULT_VERIFY_LIMITS): Promise<EntryVerification> {
  return (await verifyEntries(files, [entry], limits))[0]!;
}

type Record = (result: VerifyStepRecord["result"], extra: Partial<VerifyStepRecord>) => VerifyStepRecord;
type Runnable = { kind: "run"; compiled: CompiledPattern[]; targets: string[]; record: Record };
type Prepared = Runnable | { kind: "done"; record: VerifyStepRecord };
type Compile = typeof compilePattern;

/** compilePattern, memoised for one run: many entries search for the same pattern, and RE2 compiles are not free. */
function compileOnce(): Compile {
  const cache = new Map<string, ReturnType<Compile>>();
  return (source, syntax, ignoreCase = false) => {
    const key = `${syntax}\0${ignoreCase ? "i" : ""}\0${source}`;
    let compiled = cache.get(key);
    if (!compiled) {
      compiled = compilePattern(source, syntax, ignoreCase);
      cache.set(key, compiled);
    }
    return compiled;
  };
}

/** Plan a step, compile its patterns and list the files it searches. */
async function prepareStep(files: SearchFiles, text: string, index: number, compile: Compile = compilePattern): Promise<Prepared> {
  const plan = planStep(text);
  if (plan.kind === "not-mechanical") return { kind: "done", record: { step: index, result: "not-mechanical", reason: plan.reason } };
  const compiled: CompiledPattern[] = [];
  for (const source of plan.patterns) {
    const c = compile(source, plan.syntax, plan.ignoreCase);
    if ("problem" in c) return { kind: "done", record: { step: index, result: "not-mechanical", pattern: source, reason: c.problem } };
    compiled.push(c.value);
  }
  const pattern = plan.patterns.join(" | ");
  const record: Record = (result, extra) => ({ step: index, result, pattern, paths: plan.paths.length ? plan.paths : ["**"], ...extra });
  const lists = await Promise.all(plan.paths.length ? plan.paths.map((g) => files.glob(g)) : [files.list()]);
  const targets = lists.length === 1 ? lists[0]! : [...new Set(lists.flat())].sort();
  if (targets.length === 0) return { kind: "done", record: record("inconclusive", { files: 0, reason: `no tracked file matches ${plan.paths.join(", ")}` }) };
  return { kind: "run", compiled, targets, record };
}

export async function runStep(files: SearchFiles, text: string, index: number, limits: VerifyLimits): Promise<VerifyStepRecord> {
  const step = await prepareStep(files, text, index);
  return step.kind === "done" ? step.record : runPrepared(files, step, limits, undefined);
}

function runPrepared(files: SearchFiles, step: Runnable, limits: VerifyLimits, located: Located | undefined): VerifyStepRecord {
  const { compiled, targets, record } = step;
  if (located?.wide && isWide(step)) return searchLocated(files, located, targets, compiled, record);
  const deadline = Date.now() + limits.timeMs;
  let bytes = 0;
  let scanned = 0;
  for (const file of targets) {
    if (scanned >= limits.maxFiles || bytes >= limits.maxBytes || Date.now() > deadline) {
      return record("inconclusive", { files: scanned, reason: `searched ${scanned} of ${targets.length} files within the step's limits (${limits.timeMs} ms, ${limits.maxFiles} files, ${limits.maxBytes} bytes); no match so far` });
    }
    if ("skipped" in files.bytes(file)) continue;
    scanned++;
    bytes += files.textLength(file);
    // A pattern whose literal is not in the file cannot match it: test only the others (in order), on the decoded text.
    const candidates = located ? compiled.filter((c) => !c.literal || located.has(c.literal, file)) : compiled;
    if (!candidates.length) continue;
    const read = files.read(file);
    if (!("text" in read)) continue;
    const hit = candidates.find((c) => c.test(read.text));
    if (!hit) continue;
    return record("passed", { files: scanned, matches: hit.lines(read.text, MAX_MATCHES).map((line) => ({ file, line })) });
  }
  return record("failed", { files: scanned, reason: gone(scanned) });
}

/** Files holding a step's literal (located in one pass for all steps), each confirmed with the full pattern. */
function searchLocated(files: SearchFiles, located: Located, targetList: readonly string[], compiled: CompiledPattern[], record: Record): VerifyStepRecord {
  const { targets, scanned } = wideTargets(files, targetList);
  for (const pattern of compiled) {
    for (const index of located.hits.get(pattern.literal) ?? []) {
      const file = located.files[index]!;
      if (!targets.has(file)) continue;
      const read = files.read(file);
      if ("text" in read && pattern.test(read.text)) return record("passed", { files: scanned, matches: pattern.lines(read.text, MAX_MATCHES).map((line) => ({ file, line })) });
    }
  }
  return record("failed", { files: scanned, reason: gone(scanned) });
}

/** A wide step's targets as a set, and how many are readable; steps with the same glob share one list, so one computation. */
const wideTargetsOf = new WeakMap<readonly string[], { targets: ReadonlySet<string>; scanned: number }>();
function wideTargets(files: SearchFiles, list: readonly string[]): { targets: ReadonlySet<string>; scanned: number } {
  let found = wideTargetsOf.get(list);
  if (!found) {
    found = { targets: new Set(list), scanned: list.filter((f) => !("skipped" in files.bytes(f))).length };
    wideTargetsOf.set(list, found);
  }
  return found;
}

function gone(scanned: number): string {
  return `no match in ${scanned} file${scanned === 1 ? "" : "s"}: the pattern is gone (likely fixed)`;
}
