/**
 * The knowledge report's data model: what `cairn report --json` prints and the HTML page renders.
 * Plain, self-contained types (no imports): the page's script type-checks against this file too.
 * Every string in it may come from an entry or the ledger, i.e. from untrusted pull requests.
 */

/** Where an entry stands in its decay window; `archived` for archived entries. */
export type DecayState = "ok" | "near" | "last-chance" | "past-limit" | "archived";

/** `independent`: found by an agent not shown it; `primed-only`: found only when shown, never when withheld; `untested`: neither yet. */
export type ReportEvidence = "independent" | "primed-only" | "untested";

/** Confirmations counted over the ledger. */
export type ReportConfirmations = {
  /** By agents not shown the entry. */
  independent: number;
  /** By agents that had it injected. */
  primed: number;
};

/** Holdout's test: withholdings, and how many of them the agent re-found on its own. */
export type ReportHoldout = {
  /** Withholdings ((run, agent) pairs for one entry). */
  withheld: number;
  /** Of those, how many the agent found on its own. */
  found: number;
};

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
  /** Findings that matched an entry by an agent not shown it (independent confirmations). */
  independent: number;
  /** Findings that matched an entry injected into that agent in that run (primed confirmations). */
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

/** One entry as the report shows it. */
export type ReportEntry = {
  /** The entry's id. */
  id: string;
  /** The `title` key, else the finding's first sentence (shortened). */
  title: string;
  /** The finding, shortened to 280 characters. */
  finding: string;
  /** Repository-relative path of the file. */
  path: string;
  /** Active, or in the archive. */
  state: "active" | "archived";
  /** Claim status (`observed` by default). */
  status: string;
  /** The `provenance` key (`independent` or `primed`), null when missing. */
  provenance: string | null;
  /** The `lastConfirmed` date (YYYY-MM-DD), null when missing. */
  lastConfirmed: string | null;
  /** The `tags` key. */
  tags: string[];
  /** The `agents:` scope (names, globs, domains); empty = every agent. */
  agents: string[];
  /** Where it stands in its decay window. */
  decay: {
    /** ok, near decay, last chance, past the limit, or archived. */
    state: DecayState;
    /** Distinct runs that injected it since its last confirmation (0 when archived). */
    runs: number;
    /** decayAfterRuns. */
    limit: number;
    /** The counter from which it is "near decay". */
    nearAt: number;
    /** Runs since its last confirmation that withheld it (holdout). */
    heldOutRuns: number;
    /** Runs it may be withheld in before it decays (0: holdout off). */
    holdoutRuns: number;
  };
  /** Confirmations over the whole ledger. */
  confirmations: ReportConfirmations;
  /** Over the whole ledger: holdout's test of it. */
  holdout: ReportHoldout & {
    /** What that says about its truth. */
    evidence: ReportEvidence;
  };
  /** The latest mechanical verification of its Verify section. */
  verification: {
    /** passed, failed, not mechanical, outdated, or never run. */
    state: VerificationState;
    /** Time of the latest `verified` event (ISO). */
    time: string | null;
    /** The warning `status` and `inject` show while a failed verification stands. */
    message: string | null;
  };
  /** Its evidence anchors as live links. */
  drift: {
    /** ok, drifted, unresolved, or only anchors into other repositories. */
    state: DriftState;
    /** The anchor problems `cairn check` reports for it. */
    problems: Array<{
      /** Rule id, e.g. `anchor-moved`. */
      rule: string;
      /** Its severity after configuration. */
      severity: "error" | "warning";
      /** Line of the anchor in the entry file. */
      line: number;
      /** What is wrong and what to do. */
      message: string;
    }>;
  };
  /** Time of the last injection (ISO), null when never injected. */
  lastInjected: string | null;
  /** The `archived` date, null when active. */
  archived: string | null;
  /** The `archivedReason`, null when active. */
  archivedReason: string | null;
  /** Everything `cairn status` says about it. */
  warnings: string[];
  /** Per run: injections, withholdings and confirmations (runs with none are left out). */
  series: RunPoint[];
};

/** One agent as the report shows it. */
export type ReportAgent = {
  /** As first written in the ledger (names compare case- and whitespace-insensitively). */
  name: string;
  /** Over the whole ledger. */
  totals: {
    /** Entries injected into it. */
    injected: number;
    /** Entries withheld from it by holdout. */
    heldOut: number;
    /** Its findings that independently confirmed an entry. */
    independent: number;
    /** Its findings that matched an entry it had been shown. */
    primed: number;
    /** Compounded findings it took part in. */
    compounded: number;
    /** Runs it took part in. */
    runs: number;
  };
  /** Per run: entries injected into / withheld from it and its findings that matched entries. */
  series: RunPoint[];
};

/** A lifecycle event of the timeline. */
export type TimelineType = "created" | "compounded" | "archived" | "restored" | "retracted" | "superseded" | "status-set" | "manual-confirmed";

/** One lifecycle event on the timeline. */
export type TimelineItem = {
  /** When (ISO). */
  time: string;
  /** What happened. */
  type: TimelineType;
  /** To which entry. */
  entry: string;
  /** The run it happened in, when it did. */
  run?: string;
  /** Compounded: the agents whose findings converged. */
  agents?: string[];
  /** Who made the change (the ledger's actor). */
  actor?: string;
  /** `<branch>@<clone id>` where it happened. */
  origin?: string;
  /** Reason (archive, restore), successor (superseded), `from → to` (status-set). */
  detail?: string;
};

/** The numbers at the top of the page. Entry states and problems count active entries; runs, agents and confirmations the whole ledger. */
export type ReportSummary = {
  /** Active entries. */
  active: number;
  /** Archived entries. */
  archived: number;
  /** Active entries near decay. */
  nearDecay: number;
  /** Active entries in their last-chance holdout. */
  lastChance: number;
  /** Active entries past their decay limit (the next decay archives them). */
  pastLimit: number;
  /** Active entries by what holdout learned of them. */
  evidence: Record<ReportEvidence, number>;
  /** Active entries whose latest verification failed (and still stands). */
  verificationFailed: number;
  /** Active entries with a drifted anchor. */
  drifted: number;
  /** Active entries with an anchor that points at nothing. */
  unresolved: number;
  /** Runs in the ledger. */
  runs: number;
  /** Agents in the ledger. */
  agents: number;
  /** Confirmations over the whole ledger. */
  confirmations: ReportConfirmations;
  /** Over every entry, active and archived: (run, agent, entry) withholdings. */
  holdout: ReportHoldout;
  /** Merge conflicts `status` reports. */
  conflicts: number;
};

export type ReportModel = {
  /** Format version of this model. */
  version: 1;
  /** When it was generated (ISO). */
  generatedAt: string;
  /** The project directory's name (never a full path). */
  project: string;
  /** The settings the numbers depend on. */
  config: {
    /** Runs without independent confirmation before archiving. */
    decayAfterRuns: number;
    /** Share of decayAfterRuns from which an entry is near decay. */
    nearDecayRatio: number;
    /** The holdout setting. */
    holdout: number | "off";
    /** Runs an entry may be withheld in before it decays. */
    holdoutRuns: number;
    /** Entries per agent per run at most. */
    maxPerAgent: number;
  };
  /** The numbers at the top. */
  summary: ReportSummary;
  /** The runs on the charts' x axis, oldest first. */
  runs: ReportRun[];
  /** Active entries first, then archived; by id. */
  entries: ReportEntry[];
  /** By name. */
  agents: ReportAgent[];
  /** Oldest first. */
  timeline: TimelineItem[];
  /** States a merge left that need a decision. */
  conflicts: Array<{
    /** The entry. */
    id: string;
    /** Which kind of conflict. */
    kind: string;
    /** What happened. */
    message: string;
    /** What to do. */
    fix: string;
  }>;
  /** Ledger lines skipped, unreadable entry files. */
  warnings: string[];
};

/** Options of `kb.report()`. */
export type ReportOptions = {
  /** Show only the last N runs on the charts (counters, totals and the timeline still cover the whole ledger). Default: every run. */
  runs?: number;
};
