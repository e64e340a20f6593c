/**
 * What the knowledge base's operations (the modules of src/kb/) receive from the facade in src/knowledge-base.ts:
 * its places, clock, open index and the caches this process keeps, and its own public operations (called through
 * the facade, so an operation that uses another runs exactly what a caller of that method would).
 */
import type { Entry, EntrySummary } from "../entry/types.js";
import type { KnowledgeView } from "../indexing/catalogue-view.js";
import type { Embedder } from "../indexing/embedder.js";
import type { SearchIndex } from "../indexing/search-index.js";
import type { IndexSession } from "../indexing/session.js";
import type { Ledger, LedgerEvent, NewEvent } from "../ledger/index.js";
import type { LoadedKnowledge } from "../store/load.js";
import type { CairnConfig } from "../types/config.js";
import type { RepairResult } from "../types/entries.js";
import type { IndexProgress } from "../types/indexing.js";
import type { Layout } from "../types/open.js";
import type { SearchOptions, SearchResponse } from "../types/search.js";

/** The lint cache as this process holds it, shared by `check`, `status` and the inject gate. */
export type LintMemo = {
  /** The lint cache as this process last read or wrote it (`.cairn/lint/`). */
  cache: import("../check/lint-cache.js").LintCache | undefined;
  /** The lint cache's shards, each read once for the inject gate's and `show`'s lookups, until this process holds the whole cache. */
  lookup: ReturnType<typeof import("../check/lint-cache.js").readLintLookup> | undefined;
};

/** The knowledge base's `append`: ledger events stamped with its clock, actor and origin; `now` is that clock. */
export type KbAppend = ((events: NewEvent[]) => Promise<LedgerEvent[]>) & { now: () => Date; stampTime: () => Promise<Date> };

/** The knowledge base as its operations see it; each operation names the part it uses (`Pick<KbContext, …>`). */
export type KbContext = {
  /** Where this knowledge base's files are (absolute paths). */
  readonly layout: Layout;
  /** The resolved configuration. */
  readonly config: CairnConfig;
  /** The open ledger. */
  readonly ledger: Ledger;
  /** Append ledger events stamped with this knowledge base's clock, actor and origin. */
  readonly append: KbAppend;
  /** The one open index of this knowledge base, shared by searches, index(), lifecycle reads and the watcher. */
  readonly session: IndexSession;
  /** The `embedder` option: an embedder, null (none), or undefined (the configured one). */
  readonly embedder: Embedder | null | undefined;
  /** The lint cache this process holds (read and replaced by the operations). */
  readonly lint: LintMemo;
  /** The current time by this knowledge base's clock. */
  readonly now: () => Date;
  /** Today's date (UTC) by this knowledge base's clock. */
  readonly today: () => string;
  /** The knowledge base's `onWarning` as it is when called (a caller may set it after opening). */
  readonly warn: (message: string) => void;
  /** The progress callback of a refresh: the operation's own, else the knowledge base's. */
  readonly progress: (own?: IndexProgress) => { onProgress?: IndexProgress };
  /** Where runs happen now (see `KnowledgeBase.origin`). */
  readonly origin: () => Promise<string | undefined>;
  /** Finish the changes a killed process left pending (see `KnowledgeBase.repair`). */
  readonly repair: () => Promise<RepairResult>;
  /** Forget the cached index after writes. */
  readonly invalidate: () => void;
  /** Make the next read of the index see the files as they are now, unless a watcher keeps it current. */
  readonly refreshBeforeMatching: () => void;
  /** Every entry file parsed (see `KnowledgeBase.load`). */
  readonly load: () => Promise<LoadedKnowledge>;
  /** The catalogue view (see `KnowledgeBase.knowledge`). */
  readonly knowledge: (options?: { search?: boolean }) => Promise<KnowledgeView>;
  /** The entry of a catalogue record, parsed from its file now (see `KnowledgeBase.entryOf`). */
  readonly entryOf: (record: EntrySummary) => Promise<Entry | undefined>;
  /** The open search index, refreshed when stale (see `KnowledgeBase.searchIndex`). */
  readonly searchIndex: (options?: { search?: boolean; records?: boolean }) => Promise<{ index: SearchIndex; warnings: string[] }>;
  /** Hybrid search (see `KnowledgeBase.search`). */
  readonly search: (query: string, options?: SearchOptions) => Promise<SearchResponse>;
  /** Every distinct `agents:` scope among active entries. */
  readonly agentScopes: () => Promise<string[]>;
};
