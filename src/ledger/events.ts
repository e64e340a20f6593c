/** Ledger event types: one JSON object per line in knowledge/.ledger/*.jsonl. */
import type { Provenance } from "../entry/types.js";

export const LEDGER_SCHEMA_VERSION = 1;

type Base = {
  /** Schema version of this line. */
  v: number;
  /** Unique event id (used to de-duplicate after union merges). */
  eventId: string;
  /** ISO timestamp. */
  time: string;
  /** Who made the change: `git config user.name` or the OS user (CLI), `mcp:<client name>` (MCP), the library's `actor` option. Absent on lines written before cairn recorded actors. */
  actor?: string;
  /**
   * Where it happened: `<branch>@<clone id>` (see src/lifecycle/origin.ts). On run events it tells runs
   * apart: two branches' or two clones' `pr-1` are two runs. Absent outside git and on older lines.
   */
  origin?: string;
};

export type InjectedEvent = Base & { type: "injected"; run: string; agent: string; entries: string[] };
/** An entry the holdout policy withheld from an agent it would have been injected into (src/lifecycle/holdout.ts). */
export type HeldOutEvent = Base & { type: "held-out"; run: string; agent: string; entry: string };
/**
 * A content hash of the lines an evidence anchor points at, taken when an entry is confirmed: a
 * later `cairn check` warns when those lines changed (see src/anchors/fingerprint.ts).
 */
export type AnchorFingerprint = {
  /** The anchor's path (repo-relative; in `repo` when set). */
  path: string;
  repo?: string;
  /** The anchor's symbol: the hash covers its definition. */
  symbol?: string;
  /** 1-based inclusive lines hashed. */
  start: number;
  end: number;
  /** sha256 (first 16 hex) of those lines, trailing whitespace removed. */
  hash: string;
};

export type ConfirmedEvent = Base & {
  type: "confirmed";
  run: string;
  agent: string;
  entry: string;
  provenance: Provenance;
  /** sha256 (first 16 hex) of the finding text: with run, origin and agent, what makes `record` idempotent. */
  findingHash?: string;
  score?: number;
  /** Anchored lines at this confirmation (independent confirmations only). */
  fingerprints?: AnchorFingerprint[];
};
export type ArchivedEvent = Base & { type: "archived"; entry: string; reason: string; run?: string };
export type RestoredEvent = Base & { type: "restored"; entry: string; reason: string; run?: string; agent?: string };
export type CompoundedEvent = Base & { type: "compounded"; entry: string; run: string; agents: string[]; findingHash?: string };
/** An entry written by `cairn new` (compounding writes `compounded` instead). */
export type CreatedEvent = Base & { type: "created"; entry: string };
export type RetractedEvent = Base & { type: "retracted"; entry: string };
export type ManualConfirmEvent = Base & { type: "manual-confirmed"; entry: string; fingerprints?: AnchorFingerprint[] };
/** One verify step as run by `cairn verify`. */
export type VerifyStepRecord = {
  /** 0-based index of the step in the entry's Verify section. */
  step: number;
  result: "passed" | "failed" | "not-mechanical" | "inconclusive";
  /** The pattern searched for (grep basic syntax unless `syntax` says otherwise). */
  pattern?: string;
  /** The paths or globs searched. */
  paths?: string[];
  /** Files scanned. */
  files?: number;
  /** The first matches (at most 5). */
  matches?: Array<{ file: string; line: number }>;
  /** Why the step is not mechanical or was inconclusive. */
  reason?: string;
};
/** `cairn verify`: the entry's grep-like verify steps were run in-process. `failed` = a pattern is gone (likely fixed). */
export type VerifiedEvent = Base & {
  type: "verified";
  entry: string;
  result: "passed" | "failed" | "not-mechanical";
  /** sha256 (first 16 hex) of the Verify section the steps came from. */
  verifyHash: string;
  steps: VerifyStepRecord[];
};
/**
 * A hand edit of `lastConfirmed` (a date, no time) first seen by cairn: written just before the
 * injection that saw it, so runs after that instant count against the entry (README "The decay clock").
 */
export type HandConfirmedEvent = Base & { type: "hand-confirmed"; entry: string; date: string };
export type SupersededEvent = Base & { type: "superseded"; entry: string; by: string };
export type StatusSetEvent = Base & { type: "status-set"; entry: string; from: string; to: string };

/** `cairn check --fix` rewrote anchors in an entry (moved lines, renamed paths). */
export type AnchorsFixedEvent = Base & { type: "anchors-fixed"; entry: string; changes: Array<{ from: string; to: string }> };

export type LedgerEvent =
  | InjectedEvent
  | HeldOutEvent
  | ConfirmedEvent
  | ArchivedEvent
  | RestoredEvent
  | CompoundedEvent
  | CreatedEvent
  | RetractedEvent
  | ManualConfirmEvent
  | HandConfirmedEvent
  | SupersededEvent
  | StatusSetEvent
  | VerifiedEvent
  | AnchorsFixedEvent;
