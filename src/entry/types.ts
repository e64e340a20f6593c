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
export type TextSpan = { line: number; column: number; text: string };

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
  spans?: { path: TextSpan; loc?: TextSpan };
  /** Free text following the anchor (e.g. after an em dash). */
  note?: string;
  /** 1-based position of the anchor in the file. */
  line: number;
  column: number;
};

/** Frontmatter keys the tool understands. Values are validated; unknown keys are kept untouched. */
export type Frontmatter = {
  lastConfirmed: string;
  provenance: Provenance;
  id?: string;
  title?: string;
  tags?: string[];
  agents?: string[];
  status?: EntryStatus;
  confidence?: number;
  created?: string;
  supersedes?: string[];
  supersededBy?: string[];
  contradicts?: string[];
  archived?: string;
  archivedReason?: string;
};

export type Section = {
  text: string;
  /** 1-based line where the section starts in the file. */
  line: number;
};

/** What lifecycle code needs of an entry without its body: identity, place and frontmatter (a catalogue record is one). */
export type EntrySummary = Pick<Entry, "id" | "path" | "state" | "frontmatter">;

/** Where an evidence anchor points, as the "same place" test and the changed-code signal read it. */
export type AnchorPlace = Pick<Anchor, "path" | "glob" | "startLine" | "endLine" | "symbol">;

/** An entry as the catalogue knows it without its body: identity, frontmatter and where its evidence points. */
export type EntryCard = EntrySummary & { anchors: readonly AnchorPlace[] };

/** A parsed, valid-enough entry. `frontmatter` may be partial when the file has errors. */
export type Entry = {
  id: string;
  /** Path relative to the repository root, forward slashes. */
  path: string;
  state: EntryState;
  frontmatter: Partial<Frontmatter> & Record<string, unknown>;
  /** The finding: 1–3 sentences before the evidence. */
  finding: Section;
  /** A `Fix:` paragraph or `## Fix` section: how to repair the problem (shown to agents, not part of the finding). */
  fix?: Section;
  evidence: Section & { anchors: Anchor[] };
  verify: Section & { steps: string[] };
  /** sha256 of the raw file bytes. */
  hash: string;
  /** 1-based file line of each top-level frontmatter key, for precise diagnostics. */
  keyLines: Record<string, number>;
};
