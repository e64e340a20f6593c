/** `check` and `fixAnchors`: their options and reports, as plain types. */
import type { Diagnostic } from "../entry/diagnostic.js";

/** Options of `check`. */
export type CheckOptions = {
  /** Files or directories to report on (repo-relative or absolute). Default: the whole knowledge dir. */
  paths?: string[];
  /** Resolve evidence anchors against the repository. Default true. */
  anchors?: boolean;
  /** Add the near-duplicate rule (similarity ≥ `duplicateThreshold`); it uses the search index and the embedding model. Default false. */
  duplicates?: boolean;
};

/** What `check` found. */
export type CheckReport = {
  /** Every problem, sorted by file, line, column and rule. */
  diagnostics: Diagnostic[];
  /** Diagnostics with severity `error` (the CLI exits 1 when there are any). */
  errors: number;
  /** Diagnostics with severity `warning`. */
  warnings: number;
  /** Entry files reported on. */
  files: number;
};

/** Options of `fixAnchors`. */
export type FixAnchorsOptions = {
  /** Entry files or directories to repair (repo-relative or absolute). Default: every entry. */
  paths?: string[];
  /** Report the edits without writing them. Default false. */
  dryRun?: boolean;
};

/** One replacement on one line of an entry file, by `fixAnchors`. */
export type AnchorEdit = {
  /** Entry file (repo-relative). */
  file: string;
  /** 1-based line of the replaced text. */
  line: number;
  /** 1-based column of the replaced text. */
  column: number;
  /** The text there now. */
  from: string;
  /** Its replacement. */
  to: string;
  /** What is repaired: a moved line range or a renamed path. */
  rule: "anchor-moved" | "anchor-renamed";
  /** The anchor as written. */
  anchor: string;
};

/** What `fixAnchors` changed (or would change, with `dryRun`). */
export type FixReport = {
  /** Every edit, applied unless `dryRun`. */
  edits: AnchorEdit[];
  /** Entry files changed (or that would be, with `dryRun`). */
  files: string[];
  /** Files whose edits were refused, and why (nothing in them was changed). */
  refused: Array<{
    /** Entry file, repo-relative. */
    file: string;
    /** Why it was left alone. */
    reason: string;
  }>;
  /** True when nothing was written. */
  dryRun: boolean;
};
