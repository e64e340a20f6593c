/** Writing entries: `init`, `newEntry` and the manual operations (confirm, retract, restore, archive, supersede, setStatus), as plain types. */
import type { Diagnostic } from "../entry/diagnostic.js";

/** What `init` did: paths relative to the root (directories end with `/`). */
export type InitResult = {
  /** Directories and files created. */
  created: string[];
  /** Files that got cairn's lines added (`.gitattributes`, `.gitignore`). */
  updated: string[];
  /** What was already in place. */
  unchanged: string[];
};

/** A new entry for `newEntry`: it is written only if it passes every check. */
export type NewEntryInput = {
  /** File name without .md; letters, digits, '-', '_', '.'. */
  slug: string;
  /** The finding: 1–3 sentences, a generalised heuristic. */
  finding: string;
  /** Evidence anchors, e.g. `src/auth.ts:47-52, handleRequest() — ctx not checked`. At least one. */
  evidence: string[];
  /** Verification steps (1–3). At least one. */
  verify: string[];
  /** Title. Default none. */
  title?: string;
  /** Tags. Default none. */
  tags?: string[];
  /** Agent names, globs or domains the entry is meant for. Default none (every agent). */
  agents?: string[];
  /**
   * Further frontmatter keys, written as given after the others (e.g. `confidence`, `owner`): a string, number, boolean
   * or list of strings each. The keys cairn sets (`lastConfirmed`, `provenance`, `created`) and the ones above (`id`,
   * `title`, `tags`, `agents`) are refused here. Default none.
   */
  frontmatter?: Record<string, string | number | boolean | string[]>;
};

/** What `newEntry` did. */
export type NewEntryResult =
  | {
      /** The entry was written. */
      kind: "created";
      /** Its id (the slug). */
      id: string;
      /** Its file, repo-relative. */
      path: string;
      /** Warnings the checks reported (errors refuse the entry). */
      warnings: Diagnostic[];
    }
  | {
      /** Nothing was written. */
      kind: "refused";
      /** Why: check errors, or a sentence (bad slug, missing evidence or verify steps, id taken). */
      problems: Diagnostic[] | string;
    };

/** What `repair` finished. */
export type RepairResult = {
  /** Ids of the entries whose pending change (left by a killed process) was completed. */
  completed: string[];
};

/** What a manual operation on one entry did. */
export type ManualResult =
  | {
      /** The operation ran. */
      kind: "done";
      /** Entry id. */
      id: string;
      /** The entry's file after the operation, repo-relative. */
      path: string;
      /** False when the entry already was in the requested state (nothing written). */
      changed: boolean;
    }
  | {
      /** No entry has this id. */
      kind: "not-found";
      /** The id asked for. */
      id: string;
      /** Close ids ("did you mean"), best first. */
      suggestions: string[];
    }
  | {
      /** The operation is not allowed (e.g. a broken file, an invalid status transition). */
      kind: "refused";
      /** Entry id. */
      id: string;
      /** Why, and what to do. */
      reason: string;
    };
