/**
 * The index as one knowledge base holds it for its lifetime: opened once (concurrent callers share the
 * opening), refreshed from the files when stale, with one refresh in flight shared by every caller.
 *
 * Freshness, without a watcher: an entry added, removed or renamed (an editor's atomic save included)
 * changes the knowledge or archive directory's mtime and is seen at once; an in-place edit is seen at
 * the next re-check of every file (`intervalMs`). Lifecycle reads `invalidate()` first so they always
 * re-check every file; a running watcher keeps the index current and makes every refresh unnecessary.
 */
import { lstatSync, statSync } from "node:fs";
import type { CairnConfig } from "../config.js";
import { requireKnowledgeDir } from "../store/require.js";
import type { Layout } from "../store/layout.js";
import type { Embedder } from "./embedder.js";
import type { IndexRun } from "./open.js";
import type { Progress, SearchIndex } from "./search-index.js";

/** A search embeds at most this many texts of a cold index with a ranking embedder; `cairn index` embeds the rest. */
const SEARCH_EMBED_LIMIT = 64;

export class IndexSession {
  readonly #layout: Layout;
  readonly #config: CairnConfig;
  /** The `embedder` option of openKnowledgeBase (undefined: from config). */
  readonly #embedder: Embedder | null | undefined;
  readonly #intervalMs: number;
  /** Told how the refreshes this session starts go (a search in a fresh clone parses every entry). */
  readonly #onProgress: Progress | undefined;
  #index: Promise<SearchIndex> | undefined;
  /** When the last refresh that counts started. */
  #freshAt = 0;
  /** A watcher keeps the index current: no re-checks, only forced refreshes after this process's own writes. */
  #watched = false;
  /** The next read must refresh (a write by this process, a lifecycle decision). */
  #forced = true;
  /** The knowledge and archive directories' mtimes when the last refresh started. */
  #freshDirs = "";
  /** Bumped by every invalidate(): a refresh must start after the latest one to count as fresh. */
  #invalidations = 0;
  #refreshing: { since: number; done: Promise<string[]> } | undefined;
  /** The knowledge directory the index reads (dirIdentity), checked by every read; undefined until opened or once it changed. */
  #dirId: string | undefined;

  constructor(layout: Layout, config: CairnConfig, embedder: Embedder | null | undefined, intervalMs: number, onProgress?: Progress) {
    this.#layout = layout;
    this.#config = config;
    this.#embedder = embedder;
    this.#intervalMs = intervalMs;
    this.#onProgress = onProgress;
  }

  /** The index, opened once; a wrong root or knowledgeDir is an error here, before anything is created in .cairn/. */
  open(): Promise<SearchIndex> {
    this.#index ??= requireKnowledgeDir(this.#layout)
      .then(() => import("./open.js"))
      .then(({ openSearchIndex }) => openSearchIndex(this.#layout, this.#config, this.#override()));
    const opening = this.#index;
    opening.catch(() => {
      if (this.#index === opening) this.#index = undefined;
    });
    return opening;
  }

  /** Start again from an empty index (`index --rebuild`): an open index is reset in place, so a watcher of it keeps refreshing the index searches read. */
  async rebuild(): Promise<void> {
    const open = this.#index ? await this.#index.catch(() => undefined) : undefined;
    if (open) await open.reset();
    else this.#index = import("./open.js").then(({ openSearchIndex }) => openSearchIndex(this.#layout, this.#config, { rebuild: true, ...this.#override() }));
  }

  /**
   * The index, refreshed when stale (see the module comment), with the warnings of opening and refreshing.
   * `search`: the caller will search, so the lexical index is loaded first and whatever loading it costs
   * (the lexical work a catalogue-only refresh left, a rebuild) is saved by this refresh, not redone by every process.
   * `records` (default: unless `search`): the caller reads every catalogue record, so the records file is read whole
   * and checked now (a damaged one is rebuilt here, with a warning); without it records are read one at a time.
   */
  async fresh(options: { search?: boolean; records?: boolean } = {}): Promise<{ index: SearchIndex; warnings: string[] }> {
    await this.#checkDir();
    const index = await this.open();
    if (options.search) await index.loadLexical();
    // Before the refresh: a records file found damaged is rebuilt from the entry files, and saved by the refresh.
    const records = options.records ?? !options.search;
    if (records) await index.loadRecords();
    // While a watcher keeps the index current it also saves it: work left unsaved (a refresh here cannot save while
    // the watcher holds the lock) is its to write, not a reason to re-check every file on every read.
    const owed = (options.search === true || records) && index.unsaved && !this.#watched;
    const stale = owed || this.#forced || (!this.#watched && (Date.now() - this.#freshAt > this.#intervalMs || dirSignature(this.#layout) !== this.#freshDirs));
    const warnings = stale ? await this.#sharedRefresh(index) : [];
    return { index, warnings: [...index.takeOpenWarnings(), ...index.warnings, ...warnings] };
  }

  /** Refresh and save now, outside the shared refresh (index, check), and count it as fresh. */
  async refreshNow(options: { wait?: boolean; onProgress?: Progress; verifyContent?: boolean; embedLimit?: number; build?: boolean } = {}): Promise<{ index: SearchIndex; run: IndexRun }> {
    await this.#checkDir();
    const index = await this.open();
    const started = Date.now();
    const since = this.#invalidations;
    const dirs = dirSignature(this.#layout);
    const { refreshAndSave } = await import("./open.js");
    const run = await refreshAndSave(index, options);
    if (this.#invalidations === since) {
      this.#freshAt = started;
      this.#freshDirs = dirs;
      this.#forced = false;
    }
    return { index, run };
  }

  /** The next read re-checks every file (after a write, or before a lifecycle decision). */
  invalidate(): void {
    this.#forced = true;
    this.#invalidations++;
  }

  /** True while a watcher keeps the index current. */
  get watched(): boolean {
    return this.#watched;
  }

  /** A watcher keeps the index current (true) or stopped (false). */
  setWatched(on: boolean): void {
    this.#watched = on;
    if (!on) this.#forced = true;
  }

  /**
   * One refresh in flight per process, shared by concurrent callers (inject's two searches, an MCP server's
   * clients). A refresh that started before the last `invalidate()` (a write since) does not count: another runs.
   */
  async #sharedRefresh(index: SearchIndex): Promise<string[]> {
    const wanted = this.#invalidations;
    const running = this.#refreshing;
    if (running && running.since >= wanted) return running.done;
    if (running) await running.done.catch(() => undefined);
    if (this.#refreshing && this.#refreshing !== running && this.#refreshing.since >= wanted) return this.#refreshing.done;
    const done = this.refreshNow({ embedLimit: SEARCH_EMBED_LIMIT, ...(this.#onProgress ? { onProgress: this.#onProgress } : {}) }).then(({ run }) => run.warnings);
    const flight = { since: this.#invalidations, done };
    this.#refreshing = flight;
    try {
      return await done;
    } finally {
      if (this.#refreshing === flight) this.#refreshing = undefined;
    }
  }

  /**
   * A long-lived session (an MCP or LSP server) must notice its knowledge directory gone or swapped: it answered from
   * the index of a directory moved away, and a watcher of the old one saw nothing. Two stats per read when nothing
   * changed. Gone, no longer a directory, or now a link leaving the repository: the error requireKnowledgeDir gives.
   * Another directory (or the same one back): every file re-checked now and on later reads, the watcher not trusted.
   */
  async #checkDir(): Promise<void> {
    const id = dirIdentity(this.#layout.knowledge);
    if (id !== undefined && id === this.#dirId) return;
    if (this.#dirId !== undefined) {
      this.#dirId = undefined;
      this.#forced = true;
      this.#watched = false;
    }
    await requireKnowledgeDir(this.#layout);
    this.#dirId = dirIdentity(this.#layout.knowledge);
  }

  #override(): { embedder?: Embedder | null } {
    return this.#embedder === undefined ? {} : { embedder: this.#embedder };
  }
}

/** Which directory `dir` is (device and inode, of the link too when it is one); undefined when it is not there. */
function dirIdentity(dir: string): string | undefined {
  const link = lstatSync(dir, { throwIfNoEntry: false });
  if (link === undefined) return undefined;
  const target = link.isSymbolicLink() ? statSync(dir, { throwIfNoEntry: false }) : link;
  return target === undefined ? undefined : `${link.dev}:${link.ino}:${target.dev}:${target.ino}:${target.isDirectory()}`;
}

/** The mtimes of the knowledge and archive directories: they change when an entry is added, removed or renamed. */
function dirSignature(layout: Layout): string {
  const at = (dir: string) => statSync(dir, { throwIfNoEntry: false })?.mtimeMs ?? -1;
  return `${at(layout.knowledge)}:${at(layout.archive)}`;
}
