/** Plain domain types of a knowledge entry. */

export type Provenance = "independent" | "primed";
export const PROVENANCES: readonly Provenance[] = ["independent", "primed"];

export type EntryStatus = "observed" | "inferred" | "hypothesis" | "verified" | "disputed" | "superseded";
export const ENTRY_STATUSES: readonly EntryStatus[] = [
  "observed",
  "inferred",
  "hypothesis",
  "verified",
  "disputed",
  "superseded",
];

/** Where an entry lives: `knowledge/` (active) or `knowledge/archive/` (archived). */
export type EntryState = "active" | "archived";

/** Text on one line of an entry file: where it starts and what is written there. */
export type TextSpan = {
  /** 1-based line. */
  line: number;
  /** 1-based column. */
  column: number;
  /** The text written there. */
  text: string;
};

/** A structured evidence anchor parsed from the Evidence section. */
export type Anchor = {
  /** The raw anchor text as written, e.g. `middleware/auth.go:47-52, handleRequest()`. */
  raw: string;
  /** Another repository the path is in (`interphase:hooks/lib.sh`), resolved through config `repos`. */
  repo?: string;
  /** Repo-relative path or glob, e.g. `middleware/*.go`; undefined for a symbol-only or prose anchor. */
  path?: string;
  /** True when `path` contains glob characters. */
  glob?: boolean;
  /** First line of the range (1-based). */
  startLine?: number;
  /** Last line of the range (inclusive); equals startLine for `:47`. */
  endLine?: number;
  /** A symbol such as `handleRequest` (from `handleRequest()`) or `Server.listen`. */
  symbol?: string;
  /** The symbol came from a `#fragment` after the path (a markdown heading's slug). */
  fragment?: boolean;
  /** Found inside prose as a bare file name or a call: one that resolves to nothing is not reported. */
  mention?: boolean;
  /** The word right before the anchor in prose (a sibling repository, or a directory narrowing a bare file name). */
  qualifier?: string;
  /** Where the path and the line location are written in the entry file (for `check --fix`). */
  spans?: {
    /** Where the path is written. */
    path: TextSpan;
    /** Where the line location (`:47-52`) is written. */
    loc?: TextSpan;
  };
  /** Free text following the anchor (e.g. after an em dash). */
  note?: string;
  /** 1-based line of the anchor in the file. */
  line: number;
  /** 1-based column of the anchor in the file. */
  column: number;
};

/** Frontmatter keys the tool understands. Values are validated; unknown keys are kept untouched. */
export type Frontmatter = {
  /** Last time the finding was independently re-observed (YYYY-MM-DD, not in the future). */
  lastConfirmed: string;
  /** `independent`: flagged without seeing the entry; `primed`: the agent had it in context. */
  provenance: Provenance;
  /** Stable id. Default: the file name without .md. */
  id?: string;
  /** Short title. Default none. */
  title?: string;
  /** Topic tags. Default none. */
  tags?: string[];
  /** Agent names, globs or domains this entry is meant for. Default: every agent. */
  agents?: string[];
  /** Claim lifecycle status. Default `observed`. */
  status?: EntryStatus;
  /** Confidence 0–1. Default none. */
  confidence?: number;
  /** Creation date (YYYY-MM-DD). */
  created?: string;
  /** Entries this one replaces. */
  supersedes?: string[];
  /** The entry that replaced this one. */
  supersededBy?: string[];
  /** Entries this one contradicts. */
  contradicts?: string[];
  /** Date the entry was archived (set by the tool). */
  archived?: string;
  /** Why the entry was archived (set by the tool). */
  archivedReason?: string;
};

/** A section of the entry body. */
export type Section = {
  /** Its text, without the `Evidence:` / `Verify:` label or heading. */
  text: string;
  /** 1-based line where the section starts in the file. */
  line: number;
};

/** What lifecycle code needs of an entry without its body: identity, place and frontmatter (a catalogue record is one). */
export type EntrySummary = Pick<Entry, "id" | "path" | "state" | "frontmatter">;

/** Where an evidence anchor points, as the "same place" test and the changed-code signal read it. */
export type AnchorPlace = Pick<Anchor, "path" | "glob" | "startLine" | "endLine" | "symbol">;

/** An entry as the catalogue knows it without its body: identity, frontmatter and where its evidence points. */
export type EntryCard = EntrySummary & {
  /** Where its evidence anchors point. */
  anchors: readonly AnchorPlace[];
};

/** A parsed, valid-enough entry. `frontmatter` may be partial when the file has errors. */
export type Entry = {
  /** Stable id: frontmatter `id`, else the file name without .md. */
  id: string;
  /** Path relative to the repository root, forward slashes. */
  path: string;
  /** Active (`knowledge/`) or archived (`knowledge/archive/`). */
  state: EntryState;
  /** Every frontmatter key as parsed: the known ones (possibly invalid in a file with errors) and unknown ones. */
  frontmatter: Partial<Frontmatter> & Record<string, unknown>;
  /** The finding: 1–3 sentences before the evidence. */
  finding: Section;
  /** A `Fix:` paragraph or `## Fix` section: how to repair the problem (shown to agents, not part of the finding). */
  fix?: Section;
  /** The evidence section and its parsed anchors. */
  evidence: Section & {
    /** Every anchor found in the section, in order. */
    anchors: Anchor[];
  };
  /** The verification section and its steps. */
  verify: Section & {
    /** The steps: one per list item, else one per paragraph. */
    steps: string[];
  };
  /** sha256 of the raw file bytes. */
  hash: string;
  /** 1-based file line of each top-level frontmatter key, for precise diagnostics. */
  keyLines: Record<string, number>;
};
