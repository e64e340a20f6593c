/** Entries whose evidence anchors touch the files changed in the review: a ranked signal for fusion. */
import picomatch from "picomatch";
import type { RankedSignal } from "./fusion.js";

/** Strength of an anchor/changed-file match: same file 3, glob match 2, same directory 1. */
export function anchorTouch(anchorPaths: string[], changedFiles: string[]): number {
  let best = 0;
  for (const anchor of anchorPaths) {
    const clean = anchor.replace(/^\.\//, "");
    const isGlob = /[*?[\]{}]/.test(clean);
    const matcher = isGlob ? picomatch(clean, { dot: true }) : undefined;
    for (const file of changedFiles) {
      const f = file.replace(/^\.\//, "").split("\\").join("/");
      if (!isGlob && f === clean) return 3;
      if (matcher?.(f)) best = Math.max(best, 2);
      else if (dirOf(f) === dirOf(clean) && dirOf(f) !== "") best = Math.max(best, 1);
    }
  }
  return best;
}

/** Ranked signal of the entries whose anchors touch a changed file; relevant from a glob match (touch 2) up. */
export function anchorSignals(candidates: Array<{ id: string; anchorPaths: string[] }>, changedFiles: string[]): RankedSignal[] {
  if (!changedFiles.length) return [];
  const touched = candidates
    .map((c) => ({ id: c.id, touch: anchorTouch(c.anchorPaths, changedFiles) }))
    .filter((c) => c.touch > 0)
    .sort((a, b) => b.touch - a.touch || (a.id < b.id ? -1 : 1));
  // Entries with the same touch share a rank: an id must not decide how much boost an entry gets.
  return touched.map((c) => ({ id: c.id, rank: 1 + touched.filter((o) => o.touch > c.touch).length, score: c.touch, relevant: c.touch >= 2 }));
}

function dirOf(p: string): string {
  const i = p.lastIndexOf("/");
  return i === -1 ? "" : p.slice(0, i);
}
