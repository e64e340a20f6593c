/** Plain types of a knowledge diff between two git revisions. */
import type { Diagnostic } from "../entry/diagnostic.js";
import type { EntryState } from "../entry/types.js";

/** What happened to an entry between BASE and HEAD. */
export type ChangeKind = "added" | "retracted" | "restored" | "archived" | "edited" | "confirmed" | "renamed";

/** Most significant first: an entry is listed under the first of its kinds in this order. */
export const CHANGE_KINDS: readonly ChangeKind[] = ["added", "retracted", "restored", "archived", "edited", "confirmed", "renamed"];

/** Body sections whose text can be edited (each reaches agents' prompts). */
export type BodySection = "finding" | "evidence" | "verify" | "fix";

/** One changed entry. Facts describe HEAD, except for a retracted entry, which only exists at BASE. */
export type DiffEntry = {
  /** Entry id (at HEAD; at BASE for a retracted entry). */
  id: string;
  /** Every kind of change that applies, most significant first; the entry is listed under `kinds[0]`. */
  kinds: ChangeKind[];
  /** Path relative to the project root (at BASE for a retracted entry). */
  path: string;
  /** Path at BASE, when the file moved or was renamed. */
  previousPath?: string;
  /** Id at BASE, when a rename changed the id. */
  previousId?: string;
  /** Where the entry lives (at BASE for a retracted entry). */
  state: EntryState;
  /** Title, when the entry has one. */
  title?: string;
  /** The finding text; empty when the file does not parse. */
  finding: string;
  /** Body sections whose text changed (for `edited`). */
  sections?: BodySection[];
  /** Other frontmatter keys whose value changed, sorted (for `edited`; "metadata changed"). */
  metadata?: string[];
  /** True when the bytes changed but no section or frontmatter value did (whitespace, comments, quoting). */
  formattingOnly?: boolean;
  /** `lastConfirmed` (at HEAD). */
  lastConfirmed?: string;
  /** `provenance` (at HEAD). */
  provenance?: string;
  /** `lastConfirmed` at BASE, when the entry was confirmed (moved forward). */
  confirmedFrom?: string;
  /** `archived` date, for an archived entry. */
  archived?: string;
  /** `archivedReason`, for an archived entry. */
  archivedReason?: string;
  /** Decay counter from HEAD's ledger, for an entry active at HEAD; `nearDecay` as `cairn status` warns it. */
  decay?: {
    /** Distinct runs that injected it since its last confirmation. */
    unconfirmedRuns: number;
    /** The configured limit. */
    decayAfterRuns: number;
    /** At or past `nearDecayRatio` of the limit. */
    nearDecay: boolean;
  };
  /**
   * For an id renamed by the change: the decay counter its ledger history has under the old id, which the new id does
   * not inherit (only when that counter is above 0).
   */
  historyLeft?: {
    /** Distinct runs that injected the old id since its last confirmation. */
    unconfirmedRuns: number;
  };
  /** Which side could not be parsed at all (no frontmatter, invalid YAML...), so content was not compared. */
  unparsable?: "base" | "head" | "both";
  /** Error diagnostics of the file at HEAD (`line N: message`), e.g. for a PR that breaks an entry. */
  errors?: string[];
};

/** A layout directory kept in another place at HEAD than at BASE (a moved knowledgeDir, a link swapped or retargeted). */
export type MovedDir = {
  /** Which directory: the knowledge dir, or its archive or ledger when one moved apart from it. */
  dir: "knowledge" | "archive" | "ledger";
  /** Where BASE keeps it: relative to the project root (`/` + the path from the git top level when outside it). */
  from: string;
  /** Where HEAD keeps it, named the same way. */
  to: string;
  /** The layout's name for it at BASE, when that is another path (reached through a symbolic link). */
  fromVia?: string;
  /** The layout's name for it at HEAD, when that is another path (reached through a symbolic link). */
  toVia?: string;
};

export type KnowledgeDiff = {
  /** BASE as given, e.g. `origin/main`. */
  base: string;
  /** HEAD as given, or `working tree` when omitted. */
  head: string;
  /** Resolved commit of BASE. */
  baseCommit: string;
  /** Resolved commit of HEAD; absent when comparing against the working tree. */
  headCommit?: string;
  /** New entries. */
  added: DiffEntry[];
  /** Entries whose finding, evidence, verify steps, fix or metadata changed. */
  edited: DiffEntry[];
  /** Entries whose `lastConfirmed` moved forward (and that changed in no more significant way). */
  confirmed: DiffEntry[];
  /** Entries moved to the archive. */
  archived: DiffEntry[];
  /** Entries moved back from the archive. */
  restored: DiffEntry[];
  /** Entries whose file was deleted. */
  retracted: DiffEntry[];
  /** Entries whose only change is a file rename (an id rename with other changes is listed under those). */
  renamed: DiffEntry[];
  /** Ledger events added between the revisions, by event type (sorted keys). */
  ledger: Record<string, number>;
  /**
   * Directories kept elsewhere at HEAD than at BASE; absent when none moved. Entries are then compared by their path
   * inside the knowledge dir at each side's own place, and `problems` holds a `knowledge-dir-moved` warning per move.
   */
  moved?: MovedDir[];
  /**
   * Entries whose decay counter, confirmations or standing the added ledger events change (BASE's ledger projected
   * against HEAD's), those pushed past their decay limit first. Empty when no event was added.
   */
  ledgerEffects: LedgerEffect[];
  /** Things a reviewer should know that are not entry changes (duplicate ids, a committed change log, the configuration). */
  warnings: string[];
  /** What changed in cairn.config.json (read as the loader reads it: a link followed, a BOM dropped); absent when nothing did. */
  config?: ConfigDiff;
  /**
   * Problems of the change itself that no `cairn check` of HEAD can see: ledger events rewritten in place or removed
   * (the ledger is append-only), a knowledge directory inside a git submodule at either revision
   * (`knowledge-dir-submodule`: cairn cannot see its entries), a gating rule switched off (`config-gate-weakened`) —
   * errors — and a moved knowledge directory (`knowledge-dir-moved`) or other loosening of the configuration
   * (`config-weakened`), warnings. Any error here fails `cairn diff` (exit 1) and the GitHub Action.
   */
  problems: Diagnostic[];
};

/** cairn.config.json at one revision, as the loader finds it. */
export type ConfigSide = {
  /** `absent`: the defaults; `invalid` or `refused`: every command fails with it. */
  state: "absent" | "valid" | "invalid" | "refused";
  /** Where cairn.config.json points when it is a symbolic link (root-relative). */
  link?: string;
  /** Why it is invalid or refused. */
  problem?: string;
};

/** One setting that changed. Rules and `sanitize` are compared key by key (`rules.prompt-injection`). */
export type ConfigKeyChange = {
  /** Dotted key, e.g. `rules.prompt-injection`, `sanitize.allowHosts`, `decayAfterRuns`. */
  key: string;
  /** Value at BASE as written; absent when not set (the default applies). */
  from?: unknown;
  /** Value at HEAD as written; absent when not set. */
  to?: unknown;
  /** What applies when the key is not set (a rule's own severity); null when nothing is known. */
  default: unknown;
  /** `weakens-gate`: a gating rule below "error" (an error of the diff); `weakens`: other loosening (a warning). */
  effect?: "weakens-gate" | "weakens";
  /** What the loosening lets through. */
  why?: string;
};

/** A change of cairn.config.json between the revisions. */
export type ConfigDiff = {
  /** `cairn.config.json`. */
  file: string;
  /** Whether the file was added, removed or edited between the revisions. */
  status: "added" | "removed" | "edited";
  /** The file at BASE. */
  before: ConfigSide;
  /** The file at HEAD. */
  after: ConfigSide;
  /** Settings whose value changed, loosening ones flagged; empty when a side cannot be read. */
  changes: ConfigKeyChange[];
};

/** Where an entry stands in its decay window, as the lifecycle decides it (src/lifecycle/decay.ts `limitOf`). */
export type DecayStandingInDiff = "window" | "near-decay" | "last-chance" | "past-limit";

/** An entry's ledger counters at one revision. */
export type LedgerCounters = {
  /** Distinct runs that injected it since its last confirmation (the decay counter). */
  unconfirmedRuns: number;
  /** Runs since then that withheld it (holdout) without injecting it. */
  heldOutRuns: number;
  /** Independent confirmations over the whole ledger. */
  independent: number;
  /** Primed confirmations over the whole ledger. */
  primed: number;
  /** Where it stands in its decay window at that revision. */
  standing: DecayStandingInDiff;
};

/** What the change's new ledger events do to one entry they name. */
export type LedgerEffect = {
  /** The entry id the events name. */
  id: string;
  /** Where the entry is at HEAD; `none` when no file has the id. */
  state: "active" | "archived" | "none";
  /** Its file at HEAD. */
  path?: string;
  /** Its counters from BASE's ledger. */
  before: LedgerCounters;
  /** Its counters from HEAD's ledger. */
  after: LedgerCounters;
  /** The configured limit. */
  decayAfterRuns: number;
  /** `past-limit`: this change pushed an active entry to or past its limit; `near-decay`: out of its window toward it. */
  flag?: "past-limit" | "near-decay";
  /** The new events naming it, by type. */
  events: Record<string, number>;
  /** Distinct runs among those events. */
  runs: number;
  /** The first few of those runs. */
  sampleRuns: string[];
};
