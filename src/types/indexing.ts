/** The search index: what `index` and `watch` report, as plain types. */
import type { Diagnostic } from "../entry/diagnostic.js";

/** What one refresh of the index from the files changed. */
export type SyncReport = {
  /** Ids indexed for the first time. */
  added: string[];
  /** Ids whose content changed. */
  updated: string[];
  /** Ids whose file is gone. */
  removed: string[];
  /** Ids whose file moved (rename, archive, restore) without a content change: vectors reused. */
  moved: string[];
  /** Ids whose anchored source files changed: their anchored-code field is read again. */
  codeChanged: string[];
  /** Texts sent to the embedder. */
  embedded: number;
  /** Vectors taken from the embedding cache instead of the embedder. */
  reused: number;
  /** Entries that did not change. */
  unchanged: number;
  /** Parse problems of files that could not be (re)indexed; their last good version stays. */
  errors: Diagnostic[];
  /** E.g. the embedding model could not be loaded (lexical only). */
  warnings: string[];
};

/** What `index` did: the refresh, and the index after it. */
export type IndexSummary = SyncReport & {
  /** Entries in the index after the run. */
  entries: number;
  /** Embedder id, or null when lexical-only. */
  embedder: string | null;
  /** True when the index files were written. */
  saved: boolean;
};

/**
 * Progress of a long refresh of the index: entry files parsed and indexed so far out of those to parse
 * (`indexing`: a first index, a fresh clone, a branch switch), then texts embedded (`embedding`, only when an
 * embedder ranks). Called with `done` 0 when a phase starts.
 */
export type IndexProgress = (done: number, total: number, phase: "indexing" | "embedding") => void;

/** Options of `index`. */
export type IndexOptions = {
  /** Start from scratch instead of updating incrementally. Default false. */
  rebuild?: boolean;
  /** Called as indexing and embedding progress. Default: the knowledge base's `onProgress`. */
  onProgress?: IndexProgress;
};

/** What the watcher reports. */
export type WatchEvent =
  | {
      /** The initial refresh is done. */
      type: "ready";
      /** Entries in the index. */
      entries: number;
    }
  | {
      /** Changed files were indexed. */
      type: "updated";
      /** What changed. */
      report: SyncReport;
      /** How long the refresh took. */
      ms: number;
    }
  | {
      /** Changed files have errors: indexed, but the inject gate withholds them. */
      type: "invalid";
      /** Their problems (each reported once). */
      diagnostics: Diagnostic[];
    }
  | {
      /** A refresh failed; the last good index stays. */
      type: "error";
      /** What failed. */
      message: string;
    };

/** Options of `watch`. */
export type WatchOptions = {
  /** Quiet period after the last file event before the index is refreshed, in ms. Default 150. */
  debounceMs?: number;
  /**
   * A problem in a file modified less than this long ago (ms) is reported once the file has been left alone
   * that long: an editor that truncates and rewrites a file in place is seen half-written now and then, and
   * that moment is not the user's mistake. The index keeps the last good version meanwhile. Default 500.
   */
  settleMs?: number;
  /** Called for every watcher event. Default: none. */
  onEvent?: (event: WatchEvent) => void;
  /**
   * Run the rules over changed files (repo-relative paths) and return their diagnostics: files with
   * errors are reported as `invalid`, not `updated` (they are indexed, but the inject gate withholds them).
   * Default: `watch` runs every check rule (the same engine as `check`).
   */
  lint?: (files: string[]) => Promise<Diagnostic[]>;
};

/** A running watcher. */
export type WatchHandle = {
  /** Resolves once the initial refresh is done and the watcher is listening. */
  ready: Promise<void>;
  /** Resolves after the next refresh that starts after this call (for tests and tools). */
  settled(): Promise<void>;
  /**
   * True once the index in memory reflects every file as it was at `since` (`process.hrtime.bigint()`, a clock
   * all processes of the machine share): at once if a refresh that started at or after it has re-checked the
   * files, after the running one if that one started after it. False when no refresh since then has re-checked
   * the files (or it failed, or the watcher is closing): re-check them another way.
   */
  freshAsOf(since: bigint): Promise<boolean>;
  /** Stop watching, flush pending changes, release the lock. */
  close(): Promise<void>;
};
