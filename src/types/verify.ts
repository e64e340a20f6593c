/** `verify`: running entries' grep-like verify steps in-process, as plain types. */
import type { VerifyStepRecord } from "../ledger/events.js";

/** Options of `verify`. */
export type VerifyOptions = {
  /** Only these entries (active or archived). Default: every active entry. */
  ids?: string[];
  /** Run the steps without recording `verified` events. Default false. */
  dryRun?: boolean;
};

/** One entry's verification. */
export type EntryVerification = {
  /** Entry id. */
  id: string;
  /** Entry file, repo-relative. */
  path: string;
  /** `failed` when a step's pattern is gone; else `passed` when some step matched; else `not-mechanical`. */
  result: "passed" | "failed" | "not-mechanical";
  /** sha256 (first 16 hex) of the Verify section the steps came from. */
  verifyHash: string;
  /** 1-based line of the Verify section in the entry file. */
  line: number;
  /** Each step as run, in order. */
  steps: VerifyStepRecord[];
};

/** What `verify` found. */
export type VerifyReport = {
  /** One row per entry, in id order; `recorded` says whether a `verified` event was written for it. */
  entries: Array<
    EntryVerification & {
      /** True when a `verified` event was written for it (its result or Verify section changed); always false with `dryRun`. */
      recorded: boolean;
    }
  >;
  /** Entries with no failed step and at least one matching step. */
  passed: number;
  /** Entries with a step whose pattern is gone (likely fixed). */
  failed: number;
  /** Entries with no step that a search could judge (prose steps, or nothing to search). */
  notMechanical: number;
  /** True when nothing was recorded. */
  dryRun: boolean;
};
