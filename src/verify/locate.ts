/**
 * Where each step's literal occurs, found before any step runs: one Aho–Corasick pass (multi-search.ts)
 * over the files that steps with a literal search, on their bytes. A file that holds none of a step's
 * literals cannot match it, so steps skip it without decoding or testing it; steps over many files
 * take their candidates straight from here (`wide`).
 */
import type { SearchFiles } from "./files.js";
import { findLiterals } from "./multi-search.js";
import type { CompiledPattern } from "./pattern.js";

/** Steps over at least this many files take their candidates from the located literals (when `wide`). */
export const WIDE_FILES = 500;

export type Located = {
  /** The readable files scanned, in listing order. */
  files: string[];
  /** Per literal, the indexes (into `files`) of the files holding it, ascending. */
  hits: Map<string, number[]>;
  /** True when `literal` occurs in `file`; false for a file that was not scanned. */
  has(literal: string, file: string): boolean;
  /**
   * Wide steps may rely on the located literals alone: the text of every readable tracked file fits
   * in `maxBytes` (the memory bound of a run). Otherwise they search file by file within their limits.
   */
  wide: boolean;
};

/** A step that searches: its compiled patterns and the files it may read. */
export type LocatableStep = { compiled: readonly CompiledPattern[]; targets: readonly string[] };

export function isWide(step: LocatableStep): boolean {
  return step.targets.length >= WIDE_FILES && step.compiled.every((c) => c.literal);
}

/** Locate every literal of `steps` in the files they search; undefined when those files' text exceeds `maxBytes` (steps then read file by file). */
export async function locateLiterals(files: SearchFiles, steps: readonly LocatableStep[], maxBytes: number): Promise<Located | undefined> {
  const withLiterals = steps.filter((s) => s.compiled.some((c) => c.literal));
  if (!withLiterals.length) return undefined;
  const all = await files.list();
  const wanted = new Set<string>();
  for (const step of withLiterals) for (const file of step.targets) wanted.add(file);
  // Wide steps' results depend only on whether the whole repository's text fits (as when they searched one joined corpus of it).
  let wide = false;
  if (withLiterals.some(isWide)) {
    let total = 0;
    for (const file of all) total += files.textBytes(file)?.length ?? 0;
    wide = total <= maxBytes;
  }
  const scanned: string[] = [];
  const regions: Buffer[] = [];
  let bytes = 0;
  for (const file of all) {
    if (!wanted.has(file)) continue;
    const text = files.textBytes(file);
    if (!text) continue;
    bytes += text.length;
    if (bytes > maxBytes) return undefined;
    scanned.push(file);
    regions.push(text);
  }
  const hits = findLiterals(regions, withLiterals.flatMap((s) => s.compiled.map((c) => c.literal)));
  const index = new Map(scanned.map((file, i) => [file, i]));
  const sets = new Map<string, Set<number>>();
  return {
    files: scanned,
    hits,
    wide,
    has(literal, file) {
      const i = index.get(file);
      if (i === undefined) return false;
      let set = sets.get(literal);
      if (!set) {
        set = new Set(hits.get(literal) ?? []);
        sets.set(literal, set);
      }
      return set.has(i);
    },
  };
}
