/** After the review: the inputs and results of `recordFindings`, `compound` and `decay`, as plain types. */
import type { Provenance } from "../entry/types.js";

/** One agent's finding in a run, for `recordFindings` (other keys are accepted and ignored). */
export type Finding = {
  /** The agent that reported it (compared case- and whitespace-insensitively). */
  agent: string;
  /** What the agent found; matched against entries by similarity. */
  text: string;
  /** Id of the entry the finding restates (explicit match). Default: matched by similarity above `matchThreshold`. */
  entry?: string;
  /** Evidence anchors of the finding (`src/a.ts:10-20`); an anchor shared with an entry strengthens the match. Default none. */
  evidence?: string | string[];
  /** Verification steps of the finding (kept for the record, not used for matching). Default none. */
  verify?: string | string[];
};

/** A finding that matched an entry. */
export type Confirmation = {
  /** Position of the finding in the input. */
  index: number;
  /** Id of the matched entry. */
  entry: string;
  /** The agent that reported the finding. */
  agent: string;
  /** `independent` when the entry was not injected into this agent in this run (and the finding matches nothing that was), else `primed`. */
  provenance: Provenance;
  /** Match score 0–1 (1 for an explicit `entry`). */
  score: number;
  /** The finding's text. */
  finding: string;
  /** True when the finding named the entry (`entry`), false when matched by similarity. */
  explicit: boolean;
  /** Where the entry lives after this record: archived entries are restored by an independent finding; a primed one leaves them archived. */
  state: "active" | "archived" | "restored";
  /** Entries injected into this agent in this run that the finding matches above the threshold (why it is primed). */
  primedBy?: Array<{
    /** Id of the injected entry. */
    entry: string;
    /** The finding's match score against it. */
    score: number;
  }>;
  /** Entries injected into this agent in this run that are no longer in the knowledge base (retracted, renamed, moved by hand): the finding could not be compared with them, so it counts as primed. Absent when none. */
  primedByMissing?: string[];
};

/** A finding that matched no entry. */
export type Unmatched = {
  /** Position of the finding in the input. */
  index: number;
  /** The agent that reported it. */
  agent: string;
  /** The finding's text. */
  text: string;
  /** Why nothing matched, e.g. "no entry above the match threshold". */
  reason: string;
  /** The best candidate below the threshold, when there was one. */
  best?: {
    /** Id of that entry. */
    entry: string;
    /** Its match score. */
    score: number;
  };
  /** Close ids when the finding cites an unknown entry. */
  suggestions?: string[];
};

/** A finding this (run, agent) already recorded: a retry or a duplicate, counted once. */
export type AlreadyRecorded = {
  /** Position of the finding in the input. */
  index: number;
  /** The agent that reported it. */
  agent: string;
  /** The finding's text. */
  text: string;
  /** The entry it was recorded against the first time, if it matched one. */
  entry?: string;
};

/** What `recordFindings` did (or would do, with `dryRun`). */
export type RecordResult = {
  /** The run id. */
  run: string;
  /** Findings that matched an entry, independent or primed. */
  confirmations: Confirmation[];
  /** Findings that matched no entry (candidates for `compound`). */
  unmatched: Unmatched[];
  /** Findings this (run, agent) had already recorded (a retry or a duplicate): not counted again. */
  alreadyRecorded: AlreadyRecorded[];
  /** Archived entries an independent finding restored (the pattern recurred). */
  restored: string[];
  /** Entries the decay that follows recording archived. */
  archived: string[];
  /** Provenance warnings (a run or agent with no recorded injection) and entries that moved while recording. */
  warnings: string[];
  /** True when nothing was written. */
  dryRun: boolean;
};

/** A synthesised finding of a run, for `compound` (other keys are accepted and ignored). */
export type CompoundFinding = {
  /** The finding: becomes the new entry's finding text. */
  text: string;
  /** Every agent that flagged it; it needs two or more that were not primed with a matching entry. */
  agents: string[];
  /** Evidence anchors (`src/a.ts:10-20, fn()`); an entry needs at least one. Default none (the candidate is skipped). */
  evidence?: string | string[];
  /** Verification steps; an entry needs at least one. Default none (the candidate is skipped). */
  verify?: string | string[];
  /** The orchestrator judged it a lasting pattern, not a one-off bug. Default false (the candidate is skipped). */
  durable?: boolean;
  /** Title of the new entry (its file name is a slug of it). Default: none (the slug comes from the text). */
  title?: string;
  /** Tags of the new entry. Default none. */
  tags?: string[];
};

/** What `compound` did (or would do, with `dryRun`). */
export type CompoundResult = {
  /** The run id. */
  run: string;
  /** Ids of the entries created. */
  created: string[];
  /** Ids of archived entries restored because a candidate matched them (the pattern recurred). */
  restored: string[];
  /** Candidates that did not become entries, and why. */
  skipped: Array<{
    /** The candidate's text. */
    text: string;
    /** Why it was skipped, e.g. "not judged durable by the orchestrator". */
    reason: string;
  }>;
  /** Provenance warnings (a run or agent with no recorded injection). */
  warnings: string[];
  /** True when nothing was written. */
  dryRun: boolean;
};

/** An entry past its decay limit. */
export type DecayCandidate = {
  /** Entry id. */
  id: string;
  /** Path of the entry file before archiving, repo-relative. */
  path: string;
  /** Distinct runs that injected it since its last confirmation. */
  unconfirmedRuns: number;
  /** Runs since its last confirmation that withheld it (holdout) without injecting it. */
  heldOutRuns: number;
  /** Its `lastConfirmed` date, or null when missing. */
  lastConfirmed: string | null;
  /** Why it decays (recorded as `archivedReason`). */
  reason: string;
};

/** What `decay` archived (or would archive, with `dryRun`). */
export type DecayResult = {
  /** Entries archived (or due, with `dryRun`). */
  archived: DecayCandidate[];
  /** Entries that moved before they could be archived. */
  warnings: string[];
  /** True when nothing was written. */
  dryRun: boolean;
};

/** Options of `decay`. */
export type DecayOptions = {
  /** Report what would be archived without moving anything. Default false. */
  dryRun?: boolean;
  /** Run id recorded on the `archived` events. Default none. */
  run?: string;
};

/** Options of `recordFindings` and `compound`. */
export type ReviewOptions = {
  /** Compute the result without writing files or ledger events. Default false. */
  dryRun?: boolean;
  /** Refuse (CairnError INVALID) instead of warning when the run or an agent has no recorded injection. Default false. */
  strict?: boolean;
};
