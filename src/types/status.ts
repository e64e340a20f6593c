/** `status`, `show` and `history`: where each entry stands, one entry in full, and its past, as plain types. */
import type { Diagnostic } from "../entry/diagnostic.js";
import type { EntryState } from "../entry/types.js";
import type { LedgerEvent } from "../ledger/events.js";

/**
 * What the ledger says about an entry's truth: `independent` (an agent found it without being shown
 * it), `primed-only` (agents report it when shown, but never when it was withheld: likely a false
 * positive), `untested` (neither yet).
 */
export type Evidence = "independent" | "primed-only" | "untested";

/** Where an entry stands in its decay window: inside it, in its last-chance holdout, or past its limit (the next decay archives it). */
export type DecayStanding = "window" | "last-chance" | "past-limit";

/** What a state left by a merge is. */
export type ConflictKind = "confirmed-after-archive" | "archived-unaware-of-confirmation" | "archived-but-active";

/** A state a merge can leave that needs a decision. */
export type Conflict = {
  /** Entry id. */
  id: string;
  /** What happened. */
  kind: ConflictKind;
  /** What is wrong, in a sentence. */
  message: string;
  /** What to do about it (a command). */
  fix: string;
};

/** One entry's row in `cairn status`. */
export type EntryStatusRow = {
  /** Entry id. */
  id: string;
  /** Entry file, repo-relative. */
  path: string;
  /** Where the entry lives. */
  state: EntryState;
  /** `lastConfirmed` (YYYY-MM-DD), or null when missing. */
  lastConfirmed: string | null;
  /** `provenance`, or null when missing. */
  provenance: string | null;
  /** Claim status, `observed` unless set. */
  status: string;
  /** Distinct runs that injected the entry since its last confirmation. */
  unconfirmedRuns: number;
  /** The configured decay limit (`decayAfterRuns`). */
  decayAfterRuns: number;
  /** Runs since its last confirmation that withheld it (holdout) without injecting it. */
  heldOutRuns: number;
  /** Runs it may be withheld in before it decays (0: holdout off). */
  holdoutRuns: number;
  /** Where it stands: in its window, in its last-chance holdout, or past its limit (the next decay archives it). */
  limit: DecayStanding;
  /** Confirmations over the whole ledger. */
  confirmations: {
    /** By agents that were not shown the entry. */
    independent: number;
    /** By agents that had it (or a match) injected. */
    primed: number;
  };
  /** Over the whole ledger: (run, agent) pairs that had it withheld, and how many of them found it on their own. */
  holdout: {
    /** (run, agent) pairs it was withheld from. */
    withheld: number;
    /** Of those, how many re-found it independently. */
    found: number;
  };
  /** Independent, primed-only or untested (see Evidence). */
  evidence: Evidence;
  /** Time of the last injection (ISO), or null when never injected. */
  lastInjected: string | null;
  /** `archived` date, or null. */
  archived: string | null;
  /** `archivedReason`, or null. */
  archivedReason: string | null;
  /** Near decay, last chance, disputed, check errors, anchor drift, failed verification, conflicts. */
  warnings: string[];
};

/** Options of `status`. */
export type StatusOptions = {
  /** Include archived entries. Default false (archived entries appear only when a merge left a conflict on them). */
  all?: boolean;
};

/** `cairn status`: every active (and with `all`, archived) entry. */
export type StatusReport = {
  /** One row per entry: active first, then archived, each by id. */
  entries: EntryStatusRow[];
  /** States a merge can leave that need a decision, with what to do. */
  conflicts: Conflict[];
  /** Problems of files that hold no readable entry and of unreadable ledger lines. */
  warnings: string[];
};

/** An evidence anchor as parsed from the entry. */
export type AnchorView = {
  /** The anchor as written. */
  raw: string;
  /** Repo-relative path or glob, when the anchor has one. */
  path?: string;
  /** First cited line. */
  startLine?: number;
  /** Last cited line (inclusive). */
  endLine?: number;
  /** Cited symbol, e.g. `handleRequest`. */
  symbol?: string;
  /** Free text after the anchor. */
  note?: string;
  /** 1-based line of the anchor in the entry file. */
  line: number;
};

/** One entry in full (`show`). */
export type EntryView = {
  /** Entry id. */
  id: string;
  /** Path relative to the repository root. */
  path: string;
  /** Where the entry lives. */
  state: EntryState;
  /** The file's text, exactly as on disk. */
  text: string;
  /** Every frontmatter key as parsed (known and unknown). */
  frontmatter: Record<string, unknown>;
  /** Title (frontmatter or first heading), or null. */
  title: string | null;
  /** The finding text. */
  finding: string;
  /** Parsed evidence anchors. */
  evidence: AnchorView[];
  /** Verification steps. */
  verify: string[];
  /** The entry's `cairn status` row: decay counter, confirmations, warnings. */
  status: EntryStatusRow;
  /** This file's problems from parsing and validation (run `cairn check` for anchors and references). */
  diagnostics: Diagnostic[];
};

/** "Not found" as a value: the id asked for and the closest existing ids. */
export type NotFound = {
  /** Tells it apart from a result. */
  kind: "not-found";
  /** The id that was asked for. */
  id: string;
  /** Close ids ("did you mean"), best first. */
  suggestions: string[];
};

/** An entry whose file exists but holds no readable entry (invalid YAML, not UTF-8, empty, too large, not a file, unreadable). */
export type Unreadable = {
  /** Tells it apart from a result. */
  kind: "unreadable";
  /** The id that was asked for. */
  id: string;
  /** The file that holds it, repo-relative. */
  path: string;
  /** Why it cannot be read: file, line, column, rule and message, errors first. */
  diagnostics: Diagnostic[];
};

/** `show`: the entry, not found, or its file does not parse. */
export type ShowResult =
  | {
      /** The entry exists. */
      kind: "found";
      /** The entry in full. */
      entry: EntryView;
    }
  | NotFound
  | Unreadable;

/** One line of an entry's history, from the ledger or from git. */
export type HistoryItem =
  | {
      /** A ledger event. */
      source: "ledger";
      /** When (ISO). */
      time: string;
      /** The event type, e.g. `confirmed`. */
      type: LedgerEvent["type"];
      /** The run, for run events. */
      run?: string;
      /** The agent, for agent events. */
      agent?: string;
      /** `independent` or `primed`, for confirmations. */
      provenance?: string;
      /** What else the event says (score, reason, agents, new status). */
      detail?: string;
      /** Who made the change. */
      actor?: string;
      /** `<branch>@<clone id>` where it happened. */
      origin?: string;
    }
  | {
      /** A commit that touched the entry's file. */
      source: "git";
      /** Commit time (ISO). */
      time: string;
      /** Commit hash. */
      commit: string;
      /** Author name. */
      author: string;
      /** Commit subject line. */
      subject: string;
    };

/** `history`: an entry's ledger events and git log, oldest first. */
export type History = {
  /** Entry id. */
  id: string;
  /** Events and commits, oldest first. */
  items: HistoryItem[];
  /** E.g. git is not available. */
  warnings: string[];
};
