/** When two evidence anchors point at the same code: the "shared anchors" test for duplicate entries (compound, check --duplicates). */
import type { Anchor, AnchorPlace } from "./types.js";

export type { AnchorPlace } from "./types.js";

/** A repo-relative path as anchors compare it: forward slashes, no leading `./`. */
export function normalPath(path: string): string {
  return path.replace(/\\/g, "/").replace(/^\.\//, "").replace(/\/{2,}/g, "/");
}

function baseSymbol(symbol: string): string {
  return symbol.replace(/\(\)$/, "");
}

/**
 * True when `a` and `b` name the same place: the same file (no glob) and the same symbol, or
 * overlapping line ranges. Two whole-file anchors do not count: one file holds many findings.
 */

export function sameAnchor(a: AnchorPlace, b: AnchorPlace): boolean {
  if (!a.path || !b.path || a.glob || b.glob || normalPath(a.path) !== normalPath(b.path)) return false;
  if (a.symbol && b.symbol && baseSymbol(a.symbol) === baseSymbol(b.symbol)) return true;
  if (a.startLine !== undefined && b.startLine !== undefined) {
    const aEnd = a.endLine ?? a.startLine;
    const bEnd = b.endLine ?? b.startLine;
    return a.startLine <= bEnd && b.startLine <= aEnd;
  }
  return false;
}

/** The first pair of anchors of `a` and `b` that name the same place, if any. */
export function sharedAnchor<A extends AnchorPlace, B extends AnchorPlace>(a: readonly A[], b: readonly B[]): { a: A; b: B } | undefined {
  for (const x of a) for (const y of b) if (sameAnchor(x, y)) return { a: x, b: y };
  return undefined;
}

/** A short label for an anchor in messages: `src/db.ts:6-10 listOrders()`. */
export function anchorLabel(anchor: AnchorPlace): string {
  const lines = anchor.startLine === undefined ? "" : anchor.endLine !== undefined && anchor.endLine !== anchor.startLine ? `:${anchor.startLine}-${anchor.endLine}` : `:${anchor.startLine}`;
  return `${anchor.path ?? ""}${lines}${anchor.symbol ? ` ${anchor.symbol}` : ""}`.trim();
}
