/**
 * The persistent index in `.cairn/`: the catalogue of entry files (catalogue.ts), a layered lexical
 * index (lexical-docs.ts: a binary base segment plus a saved delta) and — only when the embedder has a
 * ranking weight — vectors (index-vectors.ts). Opening reads the manifest and the catalogue; the lexical
 * index is loaded on first search (views over a file read, nothing rebuilt), the vectors only when they
 * rank. Each save writes a new generation directory (the catalogue, the lexical delta) and swaps the
 * manifest atomically.
 *
 * Lexical documents are owed, not assumed (lexical-docs.ts): a catalogue-only refresh (status, confirm)
 * leaves the documents of changed records to the next search.
 */
import { mkdir } from "node:fs/promises";
import path from "node:path";
import { relativePath, type Layout } from "../store/layout.js";
import { cacheSeal } from "../store/cache-seal.js";
import { VERSION } from "../version.js";
import { assertTreeContained } from "../store/contain.js";
import { emptyCatalogue, refreshCatalogue, type CatalogueRecord, type ParsedEntry } from "./catalogue.js";
import { writeCatalogue, type CatalogueDirs } from "./catalogue-file.js";
import { DamagedRecords } from "./catalogue-lines.js";
import { StoredCatalogue, type RecordsById } from "./catalogue-store.js";
import { entryDocument, type AnchorRef } from "./document.js";
import { anchorsKey, changedSources, docHash, placedAnchors, sourcePaths } from "./entry-docs.js";
import type { Embedder } from "./embedder.js";
import { IndexVectors } from "./index-vectors.js";
import type { LayeredLexical } from "./lexical/layered.js";
import { LexicalDocs } from "./lexical-docs.js";
import { queryWeights } from "./lexical/query-weights.js";
import { collectGenerations, readSavedIndex, type SavedIndex } from "./index-files.js";
import { compareCatalogues, oweDisplaced } from "./refresh-changes.js";
import { INDEX_FORMAT, readManifest, writeManifest, type Manifest } from "./manifest.js";
import type { VectorHit } from "./vectors.js";
import type { SyncReport } from "../types/indexing.js";
import type { OpenIndexOptions, RefreshOptions } from "./index-options.js";

export type { IndexProgress as Progress, SyncReport } from "../types/indexing.js";
export type { OpenIndexOptions, RefreshOptions } from "./index-options.js";

/** What retrieval filters and shows of an indexed entry, read from the catalogue's table (no record decoded). */
export type IndexMeta = { path: string; state: "active" | "archived"; status: string; agents: readonly string[] };

export class SearchIndex {
  readonly layout: Layout;
  /** The embedder of the vectors that rank (null: the index holds no vectors and never embeds). */
  readonly embedder: Embedder | null;
  /** Standing warnings (e.g. the model failed: lexical only), repeated with every search. */
  readonly warnings: string[] = [];
  #openWarnings: string[] = [];
  /** The manifest this index was opened from or last saved as (null: nothing saved yet). */
  #manifest: Manifest | null;
  /**
   * The generation on disk when this index was opened or last saved, used or not: a save finding another one knows that
   * another process saved meanwhile. (One not used, e.g. copied from elsewhere, is replaced: a `check` or `status` that
   * took it for another's save never saved, and rebuilt the whole catalogue on every run.)
   */
  #seen: string | undefined;
  #data: StoredCatalogue;
  /** First record by path per id, unparsed ones included (their last good version stays searchable). */
  #indexed: RecordsById;
  /** The lexical index and the documents it owes. */
  readonly #docs: LexicalDocs;
  /** The vectors (null: no embedder ranks). */
  readonly #vectors: IndexVectors | null;
  #dirty = false;

  private constructor(layout: Layout, embedder: Embedder | null, manifest: Manifest | null, data: StoredCatalogue | null, repos: Record<string, string>) {
    this.layout = layout;
    this.embedder = embedder;
    this.#manifest = manifest;
    this.#data = data ?? StoredCatalogue.of(catalogueDirs(layout), emptyCatalogue());
    this.#indexed = this.#data.byId();
    this.#docs = new LexicalDocs(layout, repos, () => {
      this.#dirty = true;
    });
    this.#vectors = embedder ? new IndexVectors(embedder, this.warnings) : null;
  }

  /** Load the saved index, or start empty (with a warning when it was corrupt or built differently). */
  static async open(layout: Layout, embedder: Embedder | null, options: OpenIndexOptions = {}): Promise<SearchIndex> {
    await assertTreeContained(layout.root, layout.cache, "read the search index");
    const saved: SavedIndex = options.rebuild ? { kind: "fresh" } : await readSavedIndex(layout.cache, catalogueDirs(layout), options.afterManifest);
    const index = new SearchIndex(layout, embedder, saved.kind === "saved" ? saved.manifest : null, saved.kind === "saved" ? saved.catalogue : null, options.repos ?? {});
    index.#seen = saved.kind === "saved" ? saved.manifest.generation : saved.replaces;
    if (saved.kind === "fresh") {
      // The lexical index starts empty when something asks for it (search, index, watch); a catalogue-only
      // command on a fresh clone (check, status) leaves it to them as debt, analysing nothing it does not need.
      if (saved.warning) index.#openWarnings.push(saved.warning);
      index.#dirty = true;
      return index;
    }
    index.#docs.restore(saved.lexical);
    if (index.#vectors && !(await index.#vectors.open(layout.cache, saved.manifest, index.#indexed.size > 0, index.#openWarnings))) index.#dirty = true;
    return index;
  }

  /** Warnings from opening (rebuilt because corrupt, embedder changed…), reported once. */
  takeOpenWarnings(): string[] {
    const out = this.#openWarnings;
    this.#openWarnings = [];
    return out;
  }

  /** True when something changed that the next save would write (e.g. lexical work paid when the index was loaded). */
  get unsaved(): boolean {
    return this.#dirty;
  }

  /** The catalogue as of the last refresh. */
  get catalogue(): StoredCatalogue {
    return this.#data;
  }

  /**
   * The catalogue record of an entry file by its path (read by position and decoded when asked for: the inject gate
   * asks for its few candidates). A damaged record makes the catalogue be rebuilt from the entry files first.
   */
  recordAt(file: string): Promise<CatalogueRecord | undefined> {
    try {
      return Promise.resolve(this.#data.recordAt(file));
    } catch (error) {
      if (!(error instanceof DamagedRecords)) throw error;
      return this.#serial(() => this.#recovering(async () => this.#data.recordAt(file)));
    }
  }

  /** Read every record's line now and check it (a command about to read every record); a damaged file is rebuilt here, with a warning. */
  loadRecords(): Promise<void> {
    return this.#serial(() => this.#recovering(async () => this.#data.loadLines()));
  }

  /**
   * Run `task`; when it finds the records file damaged (a record's line no longer matches its checksum), forget the
   * catalogue, rebuild it from the entry files (with a warning, as for a damaged file found on opening) and run it again.
   */
  async #recovering<T>(task: () => Promise<T>): Promise<T> {
    try {
      return await task();
    } catch (error) {
      if (!(error instanceof DamagedRecords)) throw error;
      this.#openWarnings.push(`the index in .cairn/ was unreadable (${error.reason}); rebuilding it from the entry files`);
      // The ids it held are dropped from the lexical index and the vectors unless the rebuild finds them again.
      const before = [...this.#indexed.keys()];
      this.#setData(StoredCatalogue.of(catalogueDirs(this.layout), emptyCatalogue()));
      this.#dirty = true;
      await this.#refresh({});
      for (const id of before) {
        if (this.#indexed.has(id)) continue;
        this.#docs.debt.gone.add(id);
        this.#vectors?.remove(id);
      }
      return task();
    }
  }

  get size(): number {
    return this.#indexed.size;
  }

  /** True when vectors exist for search (an embedder ranks and loaded). */
  get hasVectors(): boolean {
    return this.#vectors?.usable ?? false;
  }

  meta(id: string): IndexMeta | undefined {
    const k = this.#data.positions().get(id);
    return k === undefined ? undefined : { path: this.#data.pathAt(k), ...this.#facetsAt(k) };
  }

  /** What a search filters on (meta without the path: a filter over every id builds no path). */
  facets(id: string): Omit<IndexMeta, "path"> | undefined {
    const k = this.#data.positions().get(id);
    return k === undefined ? undefined : this.#facetsAt(k);
  }

  #facetsAt(k: number): Omit<IndexMeta, "path"> {
    return { state: this.#data.stateAt(k), status: this.#data.statusAt(k), agents: this.#data.agentsAt(k) };
  }

  /**
   * An entry's anchors as the changed-code signal reads them: where they point (paths and globs, from the table),
   * and — asked only for a file whose hunks are known — where they point now (lines and symbols, the record decoded).
   */
  anchorsOf(id: string): { paths: readonly AnchorRef[]; placed: () => AnchorRef[] } | undefined {
    const k = this.#data.positions().get(id);
    if (k === undefined) return undefined;
    return { paths: this.#data.anchorPathsAt(k), placed: () => placedAnchors(this.#data.at(k)) };
  }

  /** Indexed ids, sorted (kept until the next refresh: the changed-code signal asks on every query). */
  ids(): string[] {
    return (this.#ids ??= [...this.#indexed.keys()].sort());
  }

  /** Every distinct `agents:` scope of the active entries (kept until the next refresh). */
  agentScopes(): string[] {
    return (this.#scopes ??= this.#data.scopes());
  }

  #ids: string[] | undefined;
  #scopes: string[] | undefined;

  vectorOf(id: string): Float32Array | undefined {
    return this.#vectors?.get(id);
  }

  /**
   * The lexical index, loaded from its files on first use and brought up to date with the catalogue
   * (the documents a catalogue-only refresh left owed are built now). Searches await it first.
   */
  loadLexical(): Promise<LayeredLexical> {
    if (this.#docs.ready) return Promise.resolve(this.#docs.index());
    return this.#serial(() => this.#recovering(() => this.#docs.load({ indexed: this.#indexed, data: this.#data }, this.#openWarnings)));
  }

  /** True when lexical documents are owed (a search, or `cairn index`, builds them). */
  get owes(): boolean {
    return this.#docs.owes;
  }

  /** Forget everything (`cairn index --rebuild`): the next refresh parses every file and builds every document. A watcher of this index keeps watching it. */
  reset(): Promise<void> {
    return this.#serial(async () => {
      this.#docs.reset();
      this.#setData(StoredCatalogue.of(catalogueDirs(this.layout), emptyCatalogue()));
      this.#vectors?.reset();
      this.#dirty = true;
    });
  }

  /** Every repository file an entry's anchored code depends on (the watcher watches them). */
  anchoredSources(): string[] {
    return sourcePaths(this.#data);
  }

  /** BM25F search (after `loadLexical()`). */
  lexicalSearch(query: string, limit: number, filter?: (id: string) => boolean) {
    return this.#docs.index().search(query, { limit, ...(filter ? { filter } : {}) });
  }

  /** Number of entries in the lexical index (the N of its idf; after `loadLexical()`). */
  get lexicalSize(): number {
    return this.#docs.index().size;
  }

  /** Query term → idf-weighted importance, for the lexical relevance floor (after `loadLexical()`). */
  lexicalQueryWeights(query: string): Map<string, number> {
    return queryWeights(this.#docs.index(), query);
  }

  vectorSearch(vector: Float32Array, limit: number, filter?: (id: string) => boolean): VectorHit[] {
    return this.#vectors ? this.#vectors.search(vector, limit, filter) : [];
  }

  /** Embed a query; null (with a warning kept on the index) when the model cannot be used. */
  async embedQuery(text: string): Promise<Float32Array | null> {
    return this.#vectors ? this.#vectors.embedQuery(text) : null;
  }

  /** Bring the index up to date with the entry files; only changed files are parsed, only changed text is embedded. Calls are serialised. */
  refresh(options: RefreshOptions = {}): Promise<SyncReport> {
    return this.#serial(() => this.#recovering(() => this.#refresh(options)));
  }

  /** Persist as a new generation, swap the manifest, remove what no manifest refers to. No-op when nothing changed. */
  save(): Promise<boolean> {
    return this.#serial(() => this.#save());
  }

  #queue: Promise<unknown> = Promise.resolve();

  /** Refreshes and saves mutate shared state across awaits: run them one at a time (watcher + searches in one process). */
  #serial<T>(task: () => Promise<T>): Promise<T> {
    const run = this.#queue.then(task, task);
    this.#queue = run.catch(() => {});
    return run;
  }

  /** Replace the catalogue, releasing the records file the one it replaces read when the new one does not. */
  #setData(next: StoredCatalogue): void {
    const lines = this.#data.storage?.lines;
    if (lines && lines !== next.storage?.lines) lines.close();
    this.#data = next;
    this.#reindex();
  }

  #reindex(): void {
    this.#indexed = this.#data.byId();
    this.#ids = undefined;
    this.#scopes = undefined;
  }

  /** The catalogue and its records by id, which the lexical documents are built from. */
  #source() {
    return { indexed: this.#indexed, data: this.#data };
  }

  async #refresh(options: RefreshOptions): Promise<SyncReport> {
    const report: SyncReport = { added: [], updated: [], removed: [], moved: [], codeChanged: [], embedded: 0, reused: 0, unchanged: 0, errors: [], warnings: [] };
    const before = this.#data;
    const beforeById = this.#indexed;
    // Parsed entries are built into the lexical index (when it is loaded) a chunk at a time as they are parsed, and
    // their texts to embed noted, so a first index of 100k entries never holds every parsed entry at once.
    const embedTexts = new Map<string, string>();
    const onParsed = async (chunk: ParsedEntry[]) => {
      const parsed = new Map<CatalogueRecord, ParsedEntry>();
      for (const item of chunk) {
        const { record, entry, doc } = item;
        // A re-parsed entry whose anchors are written as before keeps its anchored code (a confirm edits frontmatter
        // only); its source files are checked below like everyone's.
        const code = beforeById.get(record.id)?.code;
        if (code && code.anchors === anchorsKey(entry.evidence.anchors)) record.code = code;
        if (this.embedder) embedTexts.set(record.contentHash, doc.embedText);
        parsed.set(record, item);
      }
      const lexical = this.#docs.loaded;
      if (!lexical) return;
      const work = chunk.map((c) => c.record).filter((r) => !r.code || lexical.hashOf(r.id) !== docHash(r));
      await this.#docs.build(work, (r) => parsed.get(r)?.entry, (r) => parsed.get(r)?.doc);
    };
    const { data, changes } = await refreshCatalogue(this.layout, before, { ...(options.files ? { files: options.files } : {}), ...(options.verifyContent ? { verifyContent: true } : {}), ...(options.onProgress ? { onProgress: (done: number, total: number) => options.onProgress!(done, total, "indexing") } : {}), onParsed });
    // Entries whose anchored source files changed: their anchored code is read again (one stat per anchored file).
    const sources = changedSources(this.layout.root, data);
    const { stale, gone } = this.#docs.debt;
    for (const id of this.#docs.owed) stale.add(id);
    this.#docs.owed.clear();
    if (data === before && !this.embedder && !sources.stale.size && !sources.settled) {
      // Nothing changed (no entry file, no anchored file): the records stay as they were (encoded, mostly).
      for (const [id, k] of data.positions()) if (!data.hasCodeAt(k)) stale.add(id), gone.delete(id);
      report.unchanged = this.#indexed.size;
      if (this.#docs.loaded) await this.#docs.pay(this.#source(), changes.parsed);
      return report;
    }
    this.#setData(data);
    const contentChanged = compareCatalogues(before, data, changes, sources.stale, report, this.#docs.debt);
    for (const id of report.removed) this.#vectors?.remove(id);
    data.willRead(sources.stale.size);
    for (const id of sources.stale) {
      // Its code is read again when paid (now, or by the next search): until then it has none to trust.
      this.#indexed.get(id)!.code = undefined;
      stale.add(id);
    }
    if (sources.settled || sources.stale.size) this.#dirty = true;
    oweDisplaced(data, changes, stale);
    if (this.#docs.loaded) await this.#docs.pay(this.#source(), changes.parsed);
    if (this.#vectors) {
      data.loadLines();
      const textOf = async (record: CatalogueRecord): Promise<string | undefined> => {
        const text = embedTexts.get(record.contentHash);
        if (text !== undefined) return text;
        const entry = await this.#docs.entryOf(record);
        return entry ? entryDocument(entry).embedText : undefined;
      };
      await this.#vectors.update(this.layout.cache, { indexed: this.#indexed, contentChanged, textOf, keep: () => new Set(this.#data.records.map((r) => r.contentHash)) }, report, options);
    }
    for (const list of [report.added, report.updated, report.removed, report.moved]) list.sort();
    if (changes.changed || report.added.length + report.updated.length + report.removed.length + report.moved.length > 0) this.#dirty = true;
    return report;
  }

  async #save(): Promise<boolean> {
    if (!this.#dirty) return false;
    // A committed `.cairn` link (or one inside it) would make this write there and delete old generations there.
    await assertTreeContained(this.layout.root, this.layout.cache, "write the search index");
    const current = await readManifest(this.layout.cache);
    const theirs = current.kind === "ok" && current.manifest.format === INDEX_FORMAT ? current.manifest : null;
    const moved = theirs !== null && theirs.generation !== this.#seen;
    // Another process saved since this one opened: only a process holding the whole lexical index can write a consistent
    // index on top; a catalogue-only refresh leaves it (the next command repeats that small work).
    if (moved && !this.#docs.loaded) return false;
    const generation = `gen-${Date.now().toString(36)}-${process.pid}`;
    const dir = path.join(this.layout.cache, generation);
    await mkdir(dir, { recursive: true });
    const previous = this.#manifest?.files ?? { catalogue: "", records: "", segment: null, delta: null, vectors: null };
    const files: Manifest["files"] = { catalogue: `${generation}/catalogue.bin`, records: previous.records, segment: previous.segment, delta: previous.delta, vectors: previous.vectors };
    await this.#docs.save(this.layout.cache, generation, files, moved);
    if (!this.#vectors) files.vectors = null;
    else await this.#vectors.save(this.layout.cache, generation, files, moved);
    const debt = this.#docs.savedDebt();
    // The records are appended to the saved index's records file, unless another process saved meanwhile (or it is mostly unused lines).
    await mkdir(path.join(this.layout.cache, "records"), { recursive: true });
    const target = { current: moved || !previous.records ? null : path.join(this.layout.cache, previous.records), fresh: path.join(this.layout.cache, "records", `records-${generation}.jsonl`) };
    const saved = await writeCatalogue(path.join(this.layout.cache, files.catalogue), target, this.#data, debt, catalogueDirs(this.layout));
    files.records = path.relative(this.layout.cache, saved.records).split(path.sep).join("/");
    // From now on the catalogue reads what was just saved: the next save appends only what changes after this one.
    this.#setData(this.#data.rebased(saved.storage));
    const embedder = this.embedder && files.vectors ? { id: this.embedder.id, dims: this.embedder.dims } : null;
    const seal = cacheSeal(this.layout.cache);
    const manifest: Manifest = { format: INDEX_FORMAT, cairn: VERSION, embedder, generation, files, updated: new Date().toISOString(), ...(seal ? { seal } : {}) };
    await writeManifest(this.layout.cache, manifest);
    this.#manifest = manifest;
    this.#seen = generation;
    this.#dirty = false;
    await collectGenerations(this.layout.cache, manifest);
    return true;
  }
}

function catalogueDirs(layout: Layout): CatalogueDirs {
  return { active: relativePath(layout, layout.knowledge), archived: relativePath(layout, layout.archive) };
}
