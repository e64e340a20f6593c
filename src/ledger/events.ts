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

/** Entries injected into one agent in one run. */
export type InjectedEvent = Base & {
  /** Event type. */
  type: "injected";
  /** Run id. */
  run: string;
  /** Agent name. */
  agent: string;
  /** Ids of the injected entries. */
  entries: string[];
  /** Fingerprint of the request that chose them (src/retrieval/inject-replay.ts): a repeated request gets them again. Absent on older lines. */
  request?: string;
};
/** An entry the holdout policy withheld from an agent it would have been injected into (src/lifecycle/holdout.ts). */
export type HeldOutEvent = Base & {
  /** Event type. */
  type: "held-out";
  /** Run id. */
  run: string;
  /** Agent name. */
  agent: string;
  /** Id of the withheld entry. */
  entry: string;
};
/**
 * A content hash of the lines an evidence anchor points at, taken when an entry is confirmed: a
 * later `cairn check` warns when those lines changed (see src/anchors/fingerprint.ts).
 */
export type AnchorFingerprint = {
  /** The anchor's path (repo-relative; in `repo` when set). */
  path: string;
  /** The other repository (config `repos` name), for an anchor into one. */
  repo?: string;
  /** The anchor's symbol: the hash covers its definition. */
  symbol?: string;
  /** 1-based inclusive lines hashed. */
  start: number;
  /** Last line hashed. */
  end: number;
  /** sha256 (first 16 hex) of those lines, trailing whitespace removed. */
  hash: string;
};

/** A finding by an agent in a run matched an entry (`record`). */
export type ConfirmedEvent = Base & {
  /** Event type. */
  type: "confirmed";
  /** Run id. */
  run: string;
  /** Agent that reported the finding. */
  agent: string;
  /** Id of the matched entry. */
  entry: string;
  /** Independent (resets the decay counter) or primed (does not). */
  provenance: Provenance;
  /** sha256 (first 16 hex) of the finding text: with run, origin and agent, what makes `record` idempotent. */
  findingHash?: string;
  /** Match score 0–1. */
  score?: number;
  /** Anchored lines at this confirmation (independent confirmations only). */
  fingerprints?: AnchorFingerprint[];
};
/** An entry moved to knowledge/archive/ (decay, supersede or by hand). */
export type ArchivedEvent = Base & {
  /** Event type. */
  type: "archived";
  /** Entry id. */
  entry: string;
  /** Why (also written as `archivedReason`). */
  reason: string;
  /** The run whose record or decay archived it. */
  run?: string;
};
/** An archived entry moved back to knowledge/ (by hand, or because the pattern recurred). */
export type RestoredEvent = Base & {
  /** Event type. */
  type: "restored";
  /** Entry id. */
  entry: string;
  /** Why. */
  reason: string;
  /** The run whose finding restored it. */
  run?: string;
  /** The agent whose finding restored it. */
  agent?: string;
};
/** An entry created by compounding converging findings. */
export type CompoundedEvent = Base & {
  /** Event type. */
  type: "compounded";
  /** Id of the new (or restored) entry. */
  entry: string;
  /** Run id. */
  run: string;
  /** The agents that flagged it independently. */
  agents: string[];
  /** sha256 (first 16 hex) of the finding text: what makes `compound` idempotent per run. */
  findingHash?: string;
};
/** An entry written by `cairn new` (compounding writes `compounded` instead). */
export type CreatedEvent = Base & {
  /** Event type. */
  type: "created";
  /** Entry id. */
  entry: string;
};
/** An entry's file deleted by `cairn retract` (git keeps its history). */
export type RetractedEvent = Base & {
  /** Event type. */
  type: "retracted";
  /** Entry id. */
  entry: string;
};
/** `cairn confirm`: a human confirmed the entry. */
export type ManualConfirmEvent = Base & {
  /** Event type. */
  type: "manual-confirmed";
  /** Entry id. */
  entry: string;
  /** Anchored lines at this confirmation. */
  fingerprints?: AnchorFingerprint[];
};
/** One verify step as run by `cairn verify`. */
export type VerifyStepRecord = {
  /** 0-based index of the step in the entry's Verify section. */
  step: number;
  /** `passed`: the pattern matched; `failed`: it is gone; `inconclusive`: nothing to search, or a limit was hit. */
  result: "passed" | "failed" | "not-mechanical" | "inconclusive";
  /** The pattern searched for (grep basic syntax unless `syntax` says otherwise). */
  pattern?: string;
  /** The paths or globs searched. */
  paths?: string[];
  /** Files scanned. */
  files?: number;
  /** The first matches (at most 5). */
  matches?: Array<{
    /** Repo-relative file. */
    file: string;
    /** 1-based line. */
    line: number;
  }>;
  /** Why the step is not mechanical or was inconclusive. */
  reason?: string;
};
/** `cairn verify`: the entry's grep-like verify steps were run in-process. `failed` = a pattern is gone (likely fixed). */
export type VerifiedEvent = Base & {
  /** Event type. */
  type: "verified";
  /** Entry id. */
  entry: string;
  /** The entry's result (see EntryVerification). */
  result: "passed" | "failed" | "not-mechanical";
  /** sha256 (first 16 hex) of the Verify section the steps came from. */
  verifyHash: string;
  /** Each step as run. */
  steps: VerifyStepRecord[];
};
/**
 * A hand edit of `lastConfirmed` (a date, no time) first seen by cairn: written just before the
 * injection that saw it, so runs after that instant count against the entry (README "The decay clock").
 */
export type HandConfirmedEvent = Base & {
  /** Event type. */
  type: "hand-confirmed";
  /** Entry id. */
  entry: string;
  /** The `lastConfirmed` date found in the file. */
  date: string;
};
/** `cairn supersede OLD NEW`: OLD is replaced by NEW and archived. */
export type SupersededEvent = Base & {
  /** Event type. */
  type: "superseded";
  /** Id of the old entry. */
  entry: string;
  /** Id of the entry that replaces it. */
  by: string;
};
/** An entry's claim status changed. */
export type StatusSetEvent = Base & {
  /** Event type. */
  type: "status-set";
  /** Entry id. */
  entry: string;
  /** The status before. */
  from: string;
  /** The status after. */
  to: string;
};

/** `cairn check --fix` rewrote anchors in an entry (moved lines, renamed paths). */
export type AnchorsFixedEvent = Base & {
  /** Event type. */
  type: "anchors-fixed";
  /** Entry id. */
  entry: string;
  /** Each anchor text replaced. */
  changes: Array<{
    /** The anchor text before. */
    from: string;
    /** The anchor text after. */
    to: string;
  }>;
};

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
