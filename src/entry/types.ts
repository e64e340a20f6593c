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

/** A structured evidence anchor parsed from the Evidence section. */
export type Anchor = {
  /** The raw anchor text as written, e.g. `middleware/auth.go:47-52, handleRequest()`. */
  raw: string;
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

/** A parsed, valid-enough entry. `frontmatter` may be partial when the file has errors. */
export type Entry = {
  id: string;
  /** Path relative to the repository root, forward slashes. */
  path: string;
  state: EntryState;
  frontmatter: Partial<Frontmatter> & Record<string, unknown>;
  /** The finding: 1–3 sentences before the evidence. */
  finding: Section;
  evidence: Section & { anchors: Anchor[] };
  verify: Section & { steps: string[] };
  /** sha256 of the raw file bytes. */
  hash: string;
  /** 1-based file line of each top-level frontmatter key, for precise diagnostics. */
  keyLines: Record<string, number>;
};
