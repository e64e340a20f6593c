/**
 * The knowledge report's data model: what `cairn report --json` prints and the HTML page renders.
 * Plain, self-contained types (no imports): the page's script type-checks against this file too.
 * Every string in it may come from an entry or the ledger, i.e. from untrusted pull requests.
 */

/** Where an entry stands in its decay window; `archived` for archived entries. */
export type DecayState = "ok" | "near" | "last-chance" | "past-limit" | "archived";

/** `independent`: found by an agent not shown it; `primed-only`: found only when shown, never when withheld; `untested`: neither yet. */
export type ReportEvidence = "independent" | "primed-only" | "untested";

/**
 * The latest `cairn verify` result for the entry's current Verify section: `passed`, `failed` (the
 * pattern is gone: likely fixed), `not-mechanical`, `outdated` (the Verify section changed since, or
 * the entry was confirmed again after a failure), `never`.
 */
export type VerificationState = "passed" | "failed" | "not-mechanical" | "outdated" | "never";

/**
 * Anchors as live links: `ok`; `drifted` (moved, renamed, changed since the last confirmation, a
 * call site instead of the definition, an ambiguous file name); `unresolved` (an anchor points at
 * nothing: an error); `external` (only anchors into other repositories that were not checked).
 */
export type DriftState = "ok" | "drifted" | "unresolved" | "external";

/** One run on the x axis of every chart: a run id and where it ran (two branches' `pr-1` are two runs). */
export type ReportRun = {
  /** The orchestrator's run id. */
  id: string;
  /** `<branch>@<clone id>` when the ledger recorded it. */
  origin?: string;
  /** Label for the axis: the id, plus the branch when two runs share an id. */
  label: string;
  /** Time of the run's first event (ISO). */
  time: string;
  /** Distinct agents that were given (or had withheld) entries in it. */
  agents: number;
  /** Distinct entries injected into any agent. */
  injected: number;
  /** (agent, entry) pairs withheld by holdout. */
  heldOut: number;
  /** Findings that matched an entry: independent and primed confirmations. */
  independent: number;
  primed: number;
};

/** What happened to one entry (or one agent) in one run; runs with nothing are left out. */
export type RunPoint = {
  /** Index into `ReportModel.runs`. */
  run: number;
  /** Entry: agents it was injected into. Agent: entries injected into it. */
  injected: number;
  /** Entry: agents it was withheld from. Agent: entries withheld from it. */
  heldOut: number;
  /** Confirmations (findings matching the entry) by an agent not shown it. */
  independent: number;
  /** Confirmations by an agent that had it injected in that run. */
  primed: number;
};

export type ReportEntry = {
  id: string;
  /** The `title` key, else the finding's first sentence (shortened). */
  title: string;
  /** The finding, shortened to 280 characters. */
  finding: string;
  /** Repository-relative path of the file. */
  path: string;
  state: "active" | "archived";
  /** Claim status (`observed` by default). */
  status: string;
  provenance: string | null;
  lastConfirmed: string | null;
  tags: string[];
  /** The `agents:` scope (names, globs, domains); empty = every agent. */
  agents: string[];
  decay: {
    state: DecayState;
    /** Distinct runs that injected it since its last confirmation (0 when archived). */
    runs: number;
    /** decayAfterRuns. */
    limit: number;
    /** The counter from which it is "near decay". */
    nearAt: number;
    /** Runs since its last confirmation that withheld it (holdout), and how many it may be withheld in. */
    heldOutRuns: number;
    holdoutRuns: number;
  };
  confirmations: { independent: number; primed: number };
  /** Over the whole ledger: (run, agent) pairs that had it withheld and how many of them found it on their own. */
  holdout: { withheld: number; found: number; evidence: ReportEvidence };
  verification: {
    state: VerificationState;
    /** Time of the latest `verified` event (ISO). */
    time: string | null;
    /** The warning `status` and `inject` show while a failed verification stands. */
    message: string | null;
  };
  drift: {
    state: DriftState;
    problems: Array<{ rule: string; severity: "error" | "warning"; line: number; message: string }>;
  };
  lastInjected: string | null;
  archived: string | null;
  archivedReason: string | null;
  /** Everything `cairn status` says about it. */
  warnings: string[];
  /** Per run: injections, withholdings and confirmations (runs with none are left out). */
  series: RunPoint[];
};

export type ReportAgent = {
  /** As first written in the ledger (names compare case- and whitespace-insensitively). */
  name: string;
  totals: { injected: number; heldOut: number; independent: number; primed: number; compounded: number; runs: number };
  /** Per run: entries injected into / withheld from it and its findings that matched entries. */
  series: RunPoint[];
};

/** A lifecycle event of the timeline. */
export type TimelineType = "created" | "compounded" | "archived" | "restored" | "retracted" | "superseded" | "status-set" | "manual-confirmed";

export type TimelineItem = {
  time: string;
  type: TimelineType;
  entry: string;
  run?: string;
  /** Compounded: the agents whose findings converged. */
  agents?: string[];
  actor?: string;
  origin?: string;
  /** Reason (archive, restore), successor (superseded), `from → to` (status-set). */
  detail?: string;
};

/** The numbers at the top of the page. Entry states and problems count active entries; runs, agents and confirmations the whole ledger. */
export type ReportSummary = {
  active: number;
  archived: number;
  nearDecay: number;
  lastChance: number;
  pastLimit: number;
  evidence: Record<ReportEvidence, number>;
  /** Active entries whose latest verification failed (and still stands). */
  verificationFailed: number;
  drifted: number;
  unresolved: number;
  runs: number;
  agents: number;
  confirmations: { independent: number; primed: number };
  /** Over every entry, active and archived. */
  holdout: { withheld: number; found: number };
  conflicts: number;
};

export type ReportModel = {
  /** Format version of this model. */
  version: 1;
  /** When it was generated (ISO). */
  generatedAt: string;
  /** The project directory's name (never a full path). */
  project: string;
  config: { decayAfterRuns: number; nearDecayRatio: number; holdout: number | "off"; holdoutRuns: number; maxPerAgent: number };
  summary: ReportSummary;
  runs: ReportRun[];
  /** Active entries first, then archived; by id. */
  entries: ReportEntry[];
  /** By name. */
  agents: ReportAgent[];
  /** Oldest first. */
  timeline: TimelineItem[];
  conflicts: Array<{ id: string; kind: string; message: string; fix: string }>;
  /** Ledger lines skipped, unreadable entry files. */
  warnings: string[];
};
