/**
 * Fingerprints: a content hash of the lines an anchor points at, stored in the ledger on the
 * entry's confirmation events (never in the entry file). At check time a different hash means the
 * anchored code changed since the entry was last confirmed; an equal hash found elsewhere in the
 * file means the lines moved.
 */
import { createHash } from "node:crypto";
import type { Anchor } from "../entry/types.js";
import type { AnchorFingerprint } from "../ledger/events.js";
import { ledgerState, type LedgerSource } from "../ledger/source.js";
import type { ConfirmedPrints } from "../ledger/state.js";

export type { AnchorFingerprint } from "../ledger/events.js";

/** Windows longer than this are not searched for when lines moved (the hash still detects a change). */
const MAX_WINDOW = 400;
/** Files longer than this are not searched for moved lines. */
const MAX_SEARCH_LINES = 50_000;

/** sha256 (first 16 hex) of lines `start`..`end` (1-based, inclusive), trailing whitespace removed. */
export function hashLines(lines: readonly string[], start: number, end: number): string {
  const hash = createHash("sha256");
  for (let l = start; l <= end; l++) hash.update(`${(lines[l - 1] ?? "").trimEnd()}\n`);
  return hash.digest("hex").slice(0, 16);
}

/** The start line of a window of `length` lines hashing to `hash`, nearest to `near`; undefined when none. */
export function findWindow(lines: readonly string[], length: number, hash: string, near: number): number | undefined {
  if (length < 1 || length > MAX_WINDOW || lines.length > MAX_SEARCH_LINES) return undefined;
  let best: number | undefined;
  for (let start = 1; start + length - 1 <= lines.length; start++) {
    if (hashLines(lines, start, start + length - 1) !== hash) continue;
    if (best === undefined || Math.abs(start - near) < Math.abs(best - near)) best = start;
  }
  return best;
}

/** The fingerprints of an entry's last confirmation, with the day it happened. */
export type { ConfirmedPrints } from "../ledger/state.js";

/** Per entry id, the latest independent or manual confirmation event that carries fingerprints; `digest`: a hash of them (what cached anchor results depend on). */
export function latestFingerprints(events: LedgerSource): Pick<ReadonlyMap<string, ConfirmedPrints>, "get"> & { digest(id: string): string | undefined } {
  const state = ledgerState(events);
  // A lookup: the resolver asks about the entries whose anchors it resolves (the rest stay encoded in the snapshot);
  // the digest of every entry's prints is kept in the snapshot, so asking it of all of them decodes none.
  return { get: (id) => state.entry(id)?.prints, digest: (id) => state.printsDigest(id) };
}

/**
 * The fingerprint of `anchor` among an entry's prints: same repository and path, and the same
 * symbol (symbol anchors) or the same cited lines (line anchors). Prints older than the entry's
 * `lastConfirmed` date are stale (confirmed by hand since) and are not used.
 */
export function printFor(confirmed: ConfirmedPrints | undefined, anchor: Anchor, file: string, lastConfirmed: string | undefined): AnchorFingerprint | undefined {
  if (!confirmed || (lastConfirmed !== undefined && confirmed.date < lastConfirmed)) return undefined;
  return confirmed.prints.find(
    (p) =>
      (p.path === file || p.path === anchor.path) &&
      p.repo === anchor.repo &&
      (anchor.symbol !== undefined ? p.symbol === anchor.symbol : p.symbol === undefined && p.start === anchor.startLine && p.end === (anchor.endLine ?? anchor.startLine)),
  );
}
