/** What resolving an evidence anchor found: where it points now, what drifted, and the problems. */
import type { Severity } from "../entry/diagnostic.js";
import type { Anchor } from "../entry/types.js";

/** Rule ids of anchor problems, with their default severity (config `rules` can change it). */
export const ANCHOR_RULES = {
  /** The path or glob matches nothing, a line is past the end of the file, or the symbol does not occur. */
  "anchor-unresolved": "error",
  /** An absolute path, a `..` path or a symbolic link leaving the repository. */
  "anchor-outside-repo": "error",
  /** The cited lines no longer hold the anchored code; it moved to other lines (fixable). */
  "anchor-moved": "warning",
  /** The file or directory was renamed (git); the new path is known (fixable). */
  "anchor-renamed": "warning",
  /** The anchored lines changed since the entry was last confirmed (fingerprint in the ledger). */
  "anchor-changed": "warning",
  /** The symbol is used in the file but not defined there (a call site is not the definition). */
  "anchor-not-definition": "warning",
  /** A bare file name matches several files. */
  "anchor-ambiguous": "warning",
  /** An anchor into another repository that cannot be checked here (no checkout configured or present). */
  "anchor-external": "warning",
} as const satisfies Record<string, Severity>;

export type AnchorRule = keyof typeof ANCHOR_RULES;

/** Lines of a file, 1-based and inclusive. */
export type LineRange = {
  /** First line. */
  start: number;
  /** Last line. */
  end: number;
};

/** What `cairn check --fix` writes instead: a new path and/or a new line range. */
export type AnchorFix = {
  /** The new path (a renamed file). */
  path?: string;
  /** The new line range (moved code). */
  range?: LineRange;
};

/** One problem of one anchor. */
export type AnchorProblem = {
  /** Rule id. */
  rule: AnchorRule;
  /** The rule's severity (config `rules` may change it in diagnostics). */
  severity: Severity;
  /** What is wrong and what is expected (without the `evidence anchor …:` prefix). */
  message: string;
  /** A short form for agents (`the cited lines moved to 92-101`). */
  short: string;
  /** What `check --fix` would write, when the problem is fixable. */
  fix?: AnchorFix;
};

/** What resolving one evidence anchor found. */
export type ResolvedAnchor = {
  /** The anchor as parsed. */
  anchor: Anchor;
  /** "resolved": points at existing files (maybe drifted); "unresolved": broken; "external": another repository that could not be checked; "unchecked": nothing to check (symbol-only, or a prose mention that names no file). */
  status: "resolved" | "unresolved" | "external" | "unchecked";
  /** The repository (config `repos` name) for an anchor into another repository. */
  repo?: string;
  /** Files the anchor resolved to (repo-relative; relative to the other checkout for `repo`). */
  files: string[];
  /** The one file, when the anchor names one file. */
  file?: string;
  /** The lines it points at now: the cited lines, where they moved, or the symbol's definition. */
  range?: LineRange;
  /** The symbol's definition in `file`. */
  definition?: LineRange;
  /** True when the anchor moved, was renamed, or its lines changed. */
  drifted: boolean;
  /** Everything wrong with it (empty when it resolves cleanly). */
  problems: AnchorProblem[];
};
