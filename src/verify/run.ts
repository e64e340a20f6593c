/**
 * Run an entry's mechanical verify steps in-process: a linear-time regex (RE2) over the tracked
 * files a step names, never a shell, never a command from an entry, within a time and size budget
 * per step. A step passes when its pattern still matches somewhere; it fails when it matches
 * nowhere (the pattern is gone: the problem was likely fixed).
 */
import { createHash } from "node:crypto";
import type { Entry } from "../entry/types.js";
import type { VerifyStepRecord } from "../ledger/events.js";
import type { Corpus, SearchFiles } from "./files.js";
import { compilePattern, type CompiledPattern } from "./pattern.js";
import { planStep } from "./steps.js";

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

export type EntryVerification = {
  id: string;
  path: string;
  result: "passed" | "failed" | "not-mechanical";
  verifyHash: string;
  /** 1-based line of the Verify section in the entry file. */
  line: number;
  steps: VerifyStepRecord[];
};

/** Matches recorded per step. */
const MAX_MATCHES = 5;

export function verifyHashOf(entry: Entry): string {
  return createHash("sha256").update(entry.verify.text).digest("hex").slice(0, 16);
}

export async function verifyEntry(files: SearchFiles, entry: Entry, limits: VerifyLimits = DEFAULT_VERIFY_LIMITS): Promise<EntryVerification> {
  const steps: VerifyStepRecord[] = [];
  for (const [index, text] of entry.verify.steps.entries()) steps.push(await runStep(files, text, index, limits));
  const result = steps.some((s) => s.result === "failed") ? "failed" : steps.some((s) => s.result === "passed") ? "passed" : "not-mechanical";
  return { id: entry.id, path: entry.path, result, verifyHash: verifyHashOf(entry), line: entry.verify.line, steps };
}

export async function runStep(files: SearchFiles, text: string, index: number, limits: VerifyLimits): Promise<VerifyStepRecord> {
  const plan = planStep(text);
  if (plan.kind === "not-mechanical") return { step: index, result: "not-mechanical", reason: plan.reason };
  const compiled: CompiledPattern[] = [];
  for (const source of plan.patterns) {
    const c = compilePattern(source, plan.syntax, plan.ignoreCase);
    if ("problem" in c) return { step: index, result: "not-mechanical", pattern: source, reason: c.problem };
    compiled.push(c.value);
  }
  const pattern = plan.patterns.join(" | ");
  const record = (result: VerifyStepRecord["result"], extra: Partial<VerifyStepRecord>): VerifyStepRecord => ({ step: index, result, pattern, paths: plan.paths.length ? plan.paths : ["**"], ...extra });

  const lists = await Promise.all(plan.paths.length ? plan.paths.map((g) => files.glob(g)) : [files.list()]);
  const targets = lists.length === 1 ? lists[0]! : [...new Set(lists.flat())].sort();
  if (targets.length === 0) return record("inconclusive", { files: 0, reason: `no tracked file matches ${plan.paths.join(", ")}` });
  if (targets.length >= CORPUS_FILES && compiled.every((c) => c.literal)) {
    const corpus = await files.corpus(limits.maxBytes);
    if (corpus) return searchCorpus(files, corpus, new Set(targets), compiled, record);
  }
  const deadline = Date.now() + limits.timeMs;
  let bytes = 0;
  let scanned = 0;
  for (const file of targets) {
    if (scanned >= limits.maxFiles || bytes >= limits.maxBytes || Date.now() > deadline) {
      return record("inconclusive", { files: scanned, reason: `searched ${scanned} of ${targets.length} files within the step's limits (${limits.timeMs} ms, ${limits.maxFiles} files, ${limits.maxBytes} bytes); no match so far` });
    }
    const read = files.read(file);
    if ("skipped" in read) continue;
    scanned++;
    bytes += read.text.length;
    const hit = compiled.find((c) => c.test(read.text));
    if (!hit) continue;
    return record("passed", { files: scanned, matches: hit.lines(read.text, MAX_MATCHES).map((line) => ({ file, line })) });
  }
  return record("failed", { files: scanned, reason: gone(scanned) });
}

/** Steps over at least this many files search the joined corpus for their literal first. */
const CORPUS_FILES = 500;

/**
 * One pass of `indexOf` over the joined corpus per literal: each occurrence inside a target file
 * is confirmed with the full pattern on that file. No occurrence at all: the pattern is gone.
 */
function searchCorpus(files: SearchFiles, corpus: Corpus, targets: ReadonlySet<string>, compiled: CompiledPattern[], record: (result: VerifyStepRecord["result"], extra: Partial<VerifyStepRecord>) => VerifyStepRecord): VerifyStepRecord {
  const scanned = corpus.files.filter((f) => targets.has(f)).length;
  for (const pattern of compiled) {
    const needle = Buffer.from(pattern.literal, "utf8");
    for (let at = corpus.bytes.indexOf(needle); at !== -1; ) {
      const index = fileAt(corpus.starts, at);
      const file = corpus.files[index]!;
      const next = index + 1 < corpus.starts.length ? corpus.starts[index + 1]! : corpus.bytes.length;
      if (targets.has(file)) {
        const read = files.read(file);
        if ("text" in read && pattern.test(read.text)) return record("passed", { files: scanned, matches: pattern.lines(read.text, MAX_MATCHES).map((line) => ({ file, line })) });
      }
      // The next occurrence in another file: one file is confirmed at most once.
      at = corpus.bytes.indexOf(needle, next);
    }
  }
  return record("failed", { files: scanned, reason: gone(scanned) });
}

function fileAt(starts: readonly number[], offset: number): number {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid]! <= offset) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

function gone(scanned: number): string {
  return `no match in ${scanned} file${scanned === 1 ? "" : "s"}: the pattern is gone (likely fixed)`;
}
