/**
 * Changed code as evidence: how precisely an entry's evidence anchors touch what a review changes.
 * An exact line-range anchor overlapping a changed hunk, or an anchored symbol named in a hunk of
 * that file, is strong evidence; the same file elsewhere is weaker; a glob matching a changed file
 * is weak (a broad `lib/rules/*.js` touches every rule a PR edits) and a shared directory weaker still.
 */
import picomatch from "picomatch";
import type { AnchorRef } from "../indexing/document.js";
import type { ChangedFile } from "./diff.js";
import type { RankedSignal } from "./fusion.js";
import type { TouchLevel } from "../types/search.js";

export type { TouchLevel } from "../types/search.js";

/**
 * Strength of each level: the share of a first lexical place the changed-file signal adds to an
 * entry's fused score (measured on review-anchored: bench/retrieval-anchored.ts). Only `hunk`,
 * `symbol` and `file` make an entry relevant on their own (see `touchIsRelevant`).
 */
export const TOUCH_STRENGTH: Readonly<Record<TouchLevel, number>> = {
  hunk: 1,
  symbol: 1,
  file: 0.6,
  elsewhere: 0.3,
  glob: 0.15,
  directory: 0.05,
};

const ORDER: readonly TouchLevel[] = ["hunk", "symbol", "file", "elsewhere", "glob", "directory"];

/** Whether a touch alone lifts an entry above the relevance floor: precise evidence only, never a glob or a directory. */
export function touchIsRelevant(level: TouchLevel): boolean {
  return level === "hunk" || level === "symbol" || level === "file";
}

/** What changed: paths, and for the files a diff describes, their hunks. */
export type ChangeSet = { paths: string[]; files?: ChangedFile[] };

const norm = (p: string): string => p.replace(/^\.\//, "").split("\\").join("/");

function dirOf(p: string): string {
  const i = p.lastIndexOf("/");
  return i === -1 ? "" : p.slice(0, i);
}

const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** True when the last segment of `symbol` (`Server.listen` → `listen`) appears as a word in the file's hunks. */
function namesSymbol(file: ChangedFile, symbol: string): boolean {
  const name = symbol.split(/::|\.|#/).pop()?.replace(/\(\)$/, "") ?? "";
  if (!/^[\w$]+$/.test(name)) return false;
  const word = new RegExp(`(^|[^\\w$])${escape(name)}($|[^\\w$])`);
  return file.headings.some((h) => word.test(h)) || file.code.some((line) => word.test(line));
}

/** The change prepared once per query: normalised paths, their directories, the files with hunks. */
type ChangeIndex = { paths: Set<string>; dirs: Set<string>; list: string[]; byPath: Map<string, ChangedFile> };

function indexChange(change: ChangeSet): ChangeIndex {
  const list = change.paths.map(norm);
  const byPath = new Map<string, ChangedFile>();
  for (const file of change.files ?? []) {
    byPath.set(norm(file.path), file);
    if (file.oldPath) byPath.set(norm(file.oldPath), file);
  }
  return { paths: new Set(list), dirs: new Set(list.map(dirOf).filter((d) => d !== "")), list, byPath };
}

/** Compiled glob matchers, shared by every query of a process (entries repeat the same few globs). */
const matchers = new Map<string, (path: string) => boolean>();

function matcherFor(glob: string): (path: string) => boolean {
  let matcher = matchers.get(glob);
  if (!matcher) {
    if (matchers.size > 10_000) matchers.clear();
    matcher = picomatch(glob, { dot: true });
    matchers.set(glob, matcher);
  }
  return matcher;
}

/** The most precise level at which one anchor touches the change, or undefined. */
function touchOf(anchor: AnchorRef, change: ChangeIndex): TouchLevel | undefined {
  const clean = norm(anchor.path);
  const dir = dirOf(clean);
  if (anchor.glob) {
    const matcher = matcherFor(clean);
    return change.list.some((f) => matcher(f)) ? "glob" : dir !== "" && change.dirs.has(dir) ? "directory" : undefined;
  }
  if (change.paths.has(clean)) {
    const file = change.byPath.get(clean);
    const precise = anchor.startLine !== undefined || anchor.symbol !== undefined;
    if (!file || !precise) return "file";
    const start = anchor.startLine;
    const end = anchor.endLine ?? start;
    if (start !== undefined && end !== undefined && file.ranges.some((r) => r.start <= end && start <= r.end)) return "hunk";
    if (anchor.symbol && namesSymbol(file, anchor.symbol)) return "symbol";
    return "elsewhere";
  }
  return dir !== "" && change.dirs.has(dir) ? "directory" : undefined;
}

/** `memo`: levels of anchors seen before in this comparison (entries read from the catalogue's table share their anchor objects). */
function touchOfAll(anchors: readonly AnchorRef[], change: ChangeIndex, memo?: Map<AnchorRef, TouchLevel | undefined>): TouchLevel | undefined {
  let best: TouchLevel | undefined;
  for (const anchor of anchors) {
    let level = memo?.get(anchor);
    if (level === undefined && !memo?.has(anchor)) {
      level = touchOf(anchor, change);
      memo?.set(anchor, level);
    }
    if (level && (!best || ORDER.indexOf(level) < ORDER.indexOf(best))) best = level;
    if (best === "hunk") break;
  }
  return best;
}

/** The most precise touch of any of an entry's anchors. */
export function anchorTouch(anchors: readonly AnchorRef[], change: ChangeSet): TouchLevel | undefined {
  return touchOfAll(anchors, indexChange(change));
}

/**
 * An entry as the changed-code signal reads it: its anchors' paths and globs, and (asked only when one of them is a
 * file whose hunks are known) its anchors with the lines and symbols they point at now.
 */
export type AnchoredCandidate = { id: string; anchors: readonly AnchorRef[]; placed?: () => readonly AnchorRef[] };

/** The anchors to compare with the change: lines and symbols matter only against a changed file's hunks. */
function anchorsFor(candidate: AnchoredCandidate, change: ChangeIndex): readonly AnchorRef[] {
  if (!candidate.placed || !change.byPath.size) return candidate.anchors;
  return candidate.anchors.some((a) => !a.glob && change.byPath.has(norm(a.path))) ? candidate.placed() : candidate.anchors;
}

/**
 * Entries whose anchors touch the change: score = the level's strength; relevant only for precise levels; equal levels share a rank.
 * `admit`: which touched entries may be ranked (a search's filter: asked only of the few touched, not of every entry).
 */
export function anchorSignals(candidates: readonly AnchoredCandidate[], change: ChangeSet, admit?: (id: string) => boolean): RankedSignal[] {
  if (!change.paths.length) return [];
  const index = indexChange(change);
  const memo = new Map<AnchorRef, TouchLevel | undefined>();
  const touched = candidates
    .flatMap((c) => {
      const level = touchOfAll(anchorsFor(c, index), index, memo);
      return level && (admit === undefined || admit(c.id)) ? [{ id: c.id, level, strength: TOUCH_STRENGTH[level] }] : [];
    })
    .sort((a, b) => b.strength - a.strength || (a.id < b.id ? -1 : 1));
  // Rank = 1 + the number of entries with a strictly greater strength (equal levels share a rank).
  let rank = 1;
  return touched.map((c, i) => {
    if (i > 0 && c.strength < touched[i - 1]!.strength) rank = i + 1;
    return { id: c.id, rank, score: c.strength, touch: c.level, relevant: touchIsRelevant(c.level) };
  });
}
