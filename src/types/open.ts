/** Opening a knowledge base: its options and where its files are, as plain types. */
import type { IndexProgress } from "./indexing.js";
import type { Embedder } from "../indexing/embedder.js";
import type { CairnConfig } from "./config.js";

/** Options of `openKnowledgeBase`. */
export type OpenOptions = {
  /** Project root. Default: the nearest ancestor of the working directory holding `knowledge/` or `cairn.config.json`, never above the git repository's top; else that top, else the working directory. */
  root?: string;
  /** Configuration overrides applied on top of `cairn.config.json`, validated like the file (bad values throw CairnError CONFIG). Default none. */
  config?: Partial<CairnConfig>;
  /** Who acts, recorded on every ledger event this knowledge base writes. Default: `$CAIRN_ACTOR`, else `git config user.name`, else the OS user. */
  actor?: string;
  /** Where runs happen, recorded on run events (two branches' `pr-1` are two runs). Default: `$CAIRN_ORIGIN`, else `<branch>@<clone id>` read from git; none outside git. */
  origin?: string;
  /** Clock for dates and ledger times (tests, simulations). Default `() => new Date()`. */
  now?: () => Date;
  /** Use this embedder instead of the configured one (null = lexical only). Default: from config. */
  embedder?: Embedder | null;
  /** Without a watcher, searches re-check the files for changes at most this often (ms); stat-ing 10k files costs ~150 ms. Default 2000. */
  refreshIntervalMs?: number;
  /** Called with warnings that belong to no single result, e.g. "finished a change a killed process left pending". Default: dropped. */
  onWarning?: (message: string) => void;
  /** Told how a long refresh of the index goes, whichever operation started it (a search in a fresh clone parses every entry): for progress bars. Default: none. */
  onProgress?: IndexProgress;
};

/** Where a knowledge base's files are: absolute paths. */
export type Layout = {
  /** Absolute project (repository) root. */
  root: string;
  /** Absolute knowledge directory (`knowledge/`). */
  knowledge: string;
  /** Absolute archive directory (`knowledge/archive/`). */
  archive: string;
  /** Absolute ledger directory (`knowledge/.ledger/`). */
  ledger: string;
  /** Absolute derived-cache directory (`.cairn/`). */
  cache: string;
};
