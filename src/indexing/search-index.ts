/**
 * The persistent index in `.cairn/`: the catalogue of entry files (catalogue.ts), a layered lexical
 * index (a binary base segment plus a saved delta) and — only when the embedder has a ranking weight —
 * vectors. Opening reads the manifest and the catalogue; the lexical index is loaded on first search
 * (views over a file read, nothing rebuilt), the vectors only when they rank. Each save writes a new
 * generation directory (the catalogue, the lexical delta) and swaps the manifest atomically.
 *
 * Lexical documents are owed, not assumed: an id whose catalogue record changed, whose anchored
 * source files changed (entry-docs.ts), or whose document could not be built (its file changed or
 * vanished meanwhile) stays `stale` until the lexical index holds the document of its current record
 * (compared by hash), whether the index is loaded now (paid in the same refresh) or later (paid when
 * a search loads it). A catalogue-only refresh (status, confirm) leaves that work to the next search.
 */
import { closeSync, existsSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import path from "node:path";
import type { Diagnostic } from "../entry/diagnostic.js";
import type { Entry } from "../entry/types.js";
import { CairnError } from "../errors.js";
import { entryFileFor, mapLimit, readEntryFile, type EntryFile } from "../store/files.js";
import { relativePath, type Layout } from "../store/layout.js";
import { writeFileAtomic } from "../store/atomic.js";
import { cacheSeal } from "../store/cache-seal.js";
import { COLLECT_FROM_ENTRIES, collectGarbage } from "../store/gc.js";
import { assertTreeContained } from "../store/contain.js";
import { emptyCatalogue, refreshCatalogue, type CatalogueRecord, type ParsedEntry } from "./catalogue.js";
import { readCatalogue, writeCatalogue, type CatalogueDirs, type LexicalDebt } from "./catalogue-file.js";
import { DamagedRecords } from "./catalogue-lines.js";
import { StoredCatalogue, type RecordsById } from "./catalogue-store.js";
import { entryDocument, type AnchorRef, type IndexDoc } from "./document.js";
import { anchorsKey, changedSources, docHash, placedAnchors, sourcePaths } from "./entry-docs.js";
import type { Embedder } from "./embedder.js";
import { EmbeddingCache } from "./embedding-cache.js";
import { LayeredLexical, type LexicalDelta } from "./lexical/layered.js";
import { LEXICAL_FIELDS, resolveParams, type LexicalParams } from "./lexical/params.js";
import { Segment } from "./lexical/segment.js";
import { collectGenerations, openLexicalFiles, replaced } from "./index-files.js";
import { INDEX_FORMAT, readManifest, writeManifest, type Manifest } from "./manifest.js";
import type { VectorHit, VectorStore } from "./vectors.js";
import type { IndexProgress as Progress, SyncReport } from "../types/indexing.js";

export type { IndexProgress as Progress, SyncReport } from "../types/indexing.js";

export type RefreshOptions = {
  /** Told how embedding goes (a progress bar). Default none. */
  onProgress?: Progress;
  /** The entry files (default: listed from the knowledge dir). */
  files?: EntryFile[];
  /** Embed at most this many texts in this refresh (searches); the rest wait for `cairn index`. Default: all. */
  embedLimit?: number;
  /** Read and hash every entry file, not only those whose size or mtime changed (check). Default false. */
  verifyContent?: boolean;
};

/** What retrieval filters and shows of an indexed entry, read from the catalogue's table (no record decoded). */
export type IndexMeta = { path: string; state: "active" | "archived"; status: string; agents: readonly string[] };

export type OpenIndexOptions = {
  /** Start empty (`cairn index --rebuild`). Default false. */
  rebuild?: boolean;
  /** Configured other repositories (config `repos`): their anchors contribute no anchored code. Default none. */
  repos?: Record<string, string>;
  /** @internal Test seam: runs after the manifest is read and before the files it names (another process saving meanwhile). */
  afterManifest?: () => Promise<void>;
};

const EMBED_BATCH = 32;
/** Entries whose documents are built with one code batch (its file cache is dropped after each: memory stays bounded at 100k entries). */
const BUILD_BATCH = 256;
/** Entries of a batch whose files are read at once. */
const BUILD_READS = 16;
/** Fold the lexical overlay into a new base segment once it holds this many documents (or a tenth of the base). */
const COMPACT_MIN = 1_000;
/** While documents are added, fold the overlay into an in-memory segment once it holds this many (and a quarter of the base). */
const FOLD_AT = 2_048;
/** …and at the latest every this many: an overlay document costs far more memory than its segment bytes (a first index of 100k entries peaked at 1.7–2.5 GB folding at a quarter of the base, 1.03 GB at every 8,192 and 0.92 GB at every 4,096, with a collection before each fold). */
const FOLD_MAX = 4_096;
/** Reads of the saved index tried when another process replaces it meanwhile, before rebuilding from the entry files. */
const OPEN_ATTEMPTS = 5;

export class SearchIndex {
  readonly layout: Layout;
  /** The embedder of the vectors that rank (null: the index holds no vectors and never embeds). */
  readonly embedder: Embedder | null;
  /** Standing warnings (e.g. the model failed: lexical only), repeated with every search. */
  readonly warnings: string[] = [];
  #openWarnings: string[] = [];
  /** The manifest this index was opened from or last saved as (null: nothing saved yet). */
  #manifest: Manifest | null;
  #data: StoredCatalogue;
  /** First record by path per id, unparsed ones included (their last good version stays searchable). */
  #indexed: RecordsById;
  readonly #params: LexicalParams = resolveParams();
  #lexical: LayeredLexical | null = null;
  /** The base segment's file descriptor, opened with the manifest so a later save elsewhere cannot pull it away. */
  #segmentFd: number | null = null;
  #deltaText: string | null = null;
  #lexicalProblem: string | null = null;
  /** Ids whose lexical document must be (re)built, and ids to drop (see the header). */
  #debt: { stale: Set<string>; gone: Set<string> } = { stale: new Set(), gone: new Set() };
  /** Ids whose document could not be built in the last payment: owed again at the next refresh. */
  #owed = new Set<string>();
  readonly #repos: Record<string, string>;
  #vectors: VectorStore | null = null;
  #vectorsChanged = false;
  #dirty = false;
  #embedderFailed = false;

  private constructor(layout: Layout, embedder: Embedder | null, manifest: Manifest | null, data: StoredCatalogue | null, repos: Record<string, string>) {
    this.layout = layout;
    this.embedder = embedder;
    this.#repos = repos;
    this.#manifest = manifest;
    this.#data = data ?? StoredCatalogue.of(catalogueDirs(layout), emptyCatalogue());
    this.#indexed = this.#data.byId();
  }

  /** Load the saved index, or start empty (with a warning when it was corrupt or built differently). */
  static async open(layout: Layout, embedder: Embedder | null, options: OpenIndexOptions = {}): Promise<SearchIndex> {
    const repos = options.repos ?? {};
    const fresh = (warning?: string) => {
      // The lexical index starts empty when something asks for it (search, index, watch); a catalogue-only
      // command on a fresh clone (check, status) leaves it to them as debt, analysing nothing it does not need.
      const index = new SearchIndex(layout, embedder, null, null, repos);
      if (warning) index.#openWarnings.push(warning);
      index.#dirty = true;
      return index;
    };
    await assertTreeContained(layout.root, layout.cache, "read the search index");
    if (options.rebuild) return fresh();
    for (let attempt = 1; ; attempt++) {
      const read = await readManifest(layout.cache);
      if (read.kind === "missing") return fresh();
      if (read.kind === "corrupt") return fresh(`the index in .cairn/ was unreadable (${read.reason}); rebuilding it from the entry files`);
      const manifest = read.manifest;
      if (manifest.format !== INDEX_FORMAT) return fresh(`the index format changed (${String(manifest.format)} → ${INDEX_FORMAT}); rebuilding`);
      // A committed or copied .cairn/ could claim that an entry with a secret parses clean: only trust what was written here.
      if (manifest.seal === undefined || manifest.seal !== cacheSeal(layout.cache)) return fresh("the index in .cairn/ was not built in this directory (copied, or committed to git); rebuilding it from the entry files");
      await options.afterManifest?.();
      // The lexical files first: a process saving meanwhile removes the generation it replaced, but a file open here stays readable.
      const lexical = openLexicalFiles(layout.cache, manifest);
      const catalogue = await readCatalogue(path.join(layout.cache, manifest.files.catalogue), path.join(layout.cache, manifest.files.records), catalogueDirs(layout));
      if ((catalogue.kind === "corrupt" || lexical.problem) && attempt < OPEN_ATTEMPTS && (await replaced(layout.cache, manifest))) {
        // Another process saved while this one read (a watcher at 100k entries saves for seconds): read its generation
        // instead of rebuilding everything from the entry files.
        if (lexical.fd !== null) closeSync(lexical.fd);
        continue;
      }
      if (catalogue.kind === "corrupt") {
        if (lexical.fd !== null) closeSync(lexical.fd);
        return fresh(`the index in .cairn/ was unreadable (${catalogue.reason}); rebuilding it from the entry files`);
      }
      const index = new SearchIndex(layout, embedder, manifest, catalogue.saved, repos);
      index.#debt = { stale: new Set(catalogue.saved.lexical.stale), gone: new Set(catalogue.saved.lexical.gone) };
      index.#segmentFd = lexical.fd;
      index.#deltaText = lexical.delta;
      if (lexical.problem) index.#lexicalProblem = `the lexical index was unreadable (${lexical.problem}); rebuilding it`;
      if (embedder) await index.#openVectors(manifest);
      return index;
    }
  }

  async #openVectors(manifest: Manifest): Promise<void> {
    const embedder = this.embedder!;
    const have = manifest.embedder ? `${manifest.embedder.id}/${manifest.embedder.dims}` : "none";
    if (have !== `${embedder.id}/${embedder.dims}`) {
      if (manifest.embedder) this.#openWarnings.push(`the embedder changed (${have} → ${embedder.id}/${embedder.dims}); rebuilding the vectors`);
      this.#dirty = true;
      return;
    }
    if (!manifest.files.vectors || !this.#indexed.size) return;
    try {
      const { VectorStore } = await import("./vectors.js");
      this.#vectors = await VectorStore.load(path.join(this.layout.cache, manifest.files.vectors));
    } catch (error) {
      this.#openWarnings.push(`the vector index was unreadable (${(error as Error).message}); rebuilding it`);
      this.#dirty = true;
    }
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
        this.#debt.gone.add(id);
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
    return this.#vectors !== null && this.#vectors.size > 0 && !this.#embedderFailed;
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
    if (this.#lexical && !this.#debt.stale.size && !this.#debt.gone.size) return Promise.resolve(this.#lexical);
    return this.#serial(() =>
      this.#recovering(async () => {
        if (!this.#lexical) this.#setLexical(this.#openLexical());
        await this.#pay(new Map());
        return this.#loaded();
      }),
    );
  }

  /**
   * The base segment and delta this index was opened with; an empty index (everything owed) when they are unreadable.
   * The segment keeps its file open and reads what a query needs when it needs it (it closes the file when replaced).
   */
  #openLexical(): LayeredLexical {
    let base: Segment | null = null;
    try {
      if (this.#lexicalProblem) throw new Error(this.#lexicalProblem);
      const fd = this.#segmentFd;
      this.#segmentFd = null;
      base = fd === null ? null : Segment.openFile(fd, closeSync);
      if (base && !sameAnalysis(base.params, this.#params)) throw new Error("it was built with other fields or tokenizer settings");
      return LayeredLexical.restore(this.#params, base, this.#deltaText === null ? null : (JSON.parse(this.#deltaText) as LexicalDelta));
    } catch (error) {
      base?.close();
      const message = (error as Error).message;
      this.#openWarnings.push(message.includes("rebuilding") || message.includes("rebuilt") ? message : `the lexical index was unreadable (${message}); rebuilding it`);
      this.#debt = { stale: new Set(this.#indexed.keys()), gone: new Set() };
      return new LayeredLexical(this.#params);
    } finally {
      this.#closeSegment();
      this.#deltaText = null;
    }
  }

  /** Replace the lexical index, releasing the file the one it replaces reads. */
  #setLexical(next: LayeredLexical): void {
    if (this.#lexical && this.#lexical !== next) this.#lexical.close();
    this.#lexical = next;
  }

  /** The loaded lexical index (searches call `loadLexical()` first). */
  #loaded(): LayeredLexical {
    if (!this.#lexical) throw new CairnError("INVALID", "the lexical index is not loaded: await SearchIndex.loadLexical() before searching");
    return this.#lexical;
  }

  /**
   * Build what is owed: drop gone ids, (re)build stale ones whose document in the lexical index is
   * not their record's (by hash). `parsed`: entries this refresh just parsed, by path (their files
   * are not read again). An entry whose file changed or vanished since the catalogue read it is
   * owed again at the next refresh, never forgotten.
   */
  async #pay(parsed: ReadonlyMap<string, { entry?: Entry }>): Promise<void> {
    const lexical = this.#lexical!;
    const { stale, gone } = this.#debt;
    if (!stale.size && !gone.size) return;
    for (const id of gone) if (!this.#indexed.has(id)) lexical.remove(id);
    gone.clear();
    const work: CatalogueRecord[] = [];
    this.#data.willRead(stale.size);
    for (const id of stale) {
      const record = this.#indexed.get(id);
      if (!record) lexical.remove(id);
      else if (!record.code || lexical.hashOf(id) !== docHash(record)) work.push(record);
    }
    stale.clear();
    this.#dirty = true;
    await this.#build(work, (record) => parsed.get(record.path)?.entry);
  }

  /**
   * Build the documents of `work` (with their anchored code) into the lexical index. `parsedEntry`: an
   * entry already parsed (its file is not read again; `doc` its document when known); others are read.
   */
  async #build(work: CatalogueRecord[], parsedEntry: (record: CatalogueRecord) => Entry | undefined, docOf?: (record: CatalogueRecord) => IndexDoc | undefined): Promise<void> {
    if (!work.length) return;
    // Entries anchored into the same files are built together: each batch reads a file once.
    const first = (r: CatalogueRecord) => r.anchors[0]?.path ?? "";
    work.sort((a, b) => (first(a) < first(b) ? -1 : first(a) > first(b) ? 1 : 0));
    // Anchor resolution is loaded only to build (a catalogue-only refresh never does).
    const { codeBatch, entryDocWithCode } = await import("./entry-code.js");
    for (let at = 0; at < work.length; at += BUILD_BATCH) {
      const batch = codeBatch(this.layout.root, this.#repos);
      const slice = work.slice(at, at + BUILD_BATCH);
      // Reads overlap (a file is read once per batch whoever asks first); documents are added in order.
      const built = await mapLimit(slice, BUILD_READS, async (record) => {
        const entry = parsedEntry(record) ?? (await this.#entryOf(record));
        return entry && (await entryDocWithCode(batch, entry, docOf?.(record)));
      });
      for (const [i, record] of slice.entries()) {
        const result = built[i];
        if (!result) {
          // The file no longer parses (its last good document stays) or is gone: its next change brings it back.
          if (!record.unparsed) this.#owed.add(record.id);
          continue;
        }
        const { doc, code } = result;
        if (doc.lexicalHash !== record.lexicalHash) {
          // The file changed since the catalogue read it: the next refresh parses it again; index it then.
          this.#owed.add(record.id);
          continue;
        }
        record.code = code;
        const hash = docHash(record);
        if (this.#lexical!.hashOf(record.id) === hash) continue;
        this.#lexical!.add(doc.lexical, hash);
        this.#foldOverlay();
      }
    }
  }

  /** A record's entry parsed from its file now; undefined when the file is gone, does not parse or holds another id. */
  async #entryOf(record: CatalogueRecord): Promise<Entry | undefined> {
    const file = entryFileFor(this.layout, record.path);
    if (!file) return undefined;
    const { entry } = await readEntryFile(this.layout, file);
    return entry && entry.id === record.id ? entry : undefined;
  }

  /** True when lexical documents are owed (a search, or `cairn index`, builds them). */
  get owes(): boolean {
    return this.#debt.stale.size + this.#debt.gone.size + this.#owed.size > 0;
  }

  /** Forget everything (`cairn index --rebuild`): the next refresh parses every file and builds every document. A watcher of this index keeps watching it. */
  reset(): Promise<void> {
    return this.#serial(async () => {
      this.#closeSegment();
      this.#deltaText = null;
      this.#lexicalProblem = null;
      this.#setData(StoredCatalogue.of(catalogueDirs(this.layout), emptyCatalogue()));
      this.#setLexical(new LayeredLexical(this.#params));
      this.#folded = null;
      this.#debt = { stale: new Set(), gone: new Set() };
      this.#owed.clear();
      this.#vectors = null;
      this.#vectorsChanged = false;
      this.#embedderFailed = false;
      this.#dirty = true;
    });
  }

  /** Every repository file an entry's anchored code depends on (the watcher watches them). */
  anchoredSources(): string[] {
    return sourcePaths(this.#data);
  }

  /** BM25F search (after `loadLexical()`). */
  lexicalSearch(query: string, limit: number, filter?: (id: string) => boolean) {
    return this.#loaded().search(query, { limit, ...(filter ? { filter } : {}) });
  }

  /** Number of entries in the lexical index (the N of its idf; after `loadLexical()`). */
  get lexicalSize(): number {
    return this.#loaded().size;
  }

  /** Query term → idf-weighted importance, for the lexical relevance floor (after `loadLexical()`). */
  lexicalQueryWeights(query: string): Map<string, number> {
    const lexical = this.#loaded();
    const n = Math.max(1, lexical.size);
    const out = new Map<string, number>();
    for (const [term, qw] of lexical.queryTerms(query)) {
      const df = lexical.documentFrequency(term);
      out.set(term, qw * Math.log(1 + (n - df + 0.5) / (df + 0.5)));
    }
    return out;
  }

  vectorSearch(vector: Float32Array, limit: number, filter?: (id: string) => boolean): VectorHit[] {
    return this.#vectors ? this.#vectors.search(vector, limit, filter) : [];
  }

  /** Embed a query; null (with a warning kept on the index) when the model cannot be used. */
  async embedQuery(text: string): Promise<Float32Array | null> {
    if (!this.embedder || this.#embedderFailed) return null;
    try {
      const [vector] = await this.embedder.embed([text]);
      return vector ?? null;
    } catch (error) {
      this.#embedderFailed = true;
      this.warnings.push(`embedding model unavailable (${(error as Error).message}); using lexical search only`);
      return null;
    }
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
      const lexical = this.#lexical;
      if (!lexical) return;
      const work = chunk.map((c) => c.record).filter((r) => !r.code || lexical.hashOf(r.id) !== docHash(r));
      await this.#build(work, (r) => parsed.get(r)?.entry, (r) => parsed.get(r)?.doc);
    };
    const { data, changes } = await refreshCatalogue(this.layout, before, { ...(options.files ? { files: options.files } : {}), ...(options.verifyContent ? { verifyContent: true } : {}), ...(options.onProgress ? { onProgress: (done: number, total: number) => options.onProgress!(done, total, "indexing") } : {}), onParsed });
    // Entries whose anchored source files changed: their anchored code is read again (one stat per anchored file).
    const sources = changedSources(this.layout.root, data);
    const { stale, gone } = this.#debt;
    for (const id of this.#owed) stale.add(id);
    this.#owed.clear();
    if (data === before && !this.embedder && !sources.stale.size && !sources.settled) {
      // Nothing changed (no entry file, no anchored file): the records stay as they were (encoded, mostly).
      for (const [id, k] of data.positions()) if (!data.hasCodeAt(k)) stale.add(id), gone.delete(id);
      report.unchanged = this.#indexed.size;
      if (this.#lexical) await this.#pay(changes.parsed);
      return report;
    }
    this.#setData(data);
    report.errors.push(...changes.errors);
    const now = data.positions();
    const duplicates: Array<[string, string]> = [];
    for (const [file, { record }] of changes.parsed) {
      const first = now.get(record.id);
      if (first !== undefined && data.pathAt(first) !== file) duplicates.push([file, `duplicate id "${record.id}" in ${file}; indexing ${data.pathAt(first)} only`]);
    }
    report.warnings.push(...duplicates.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)).map(([, w]) => w));
    // Compared position by position: a record kept as it was (the same saved line, or the same record) is not decoded.
    const previousAt = before.positions();
    const contentChanged: string[] = [];
    for (const [id, k] of now) {
      const p = previousAt.get(id);
      if (p !== undefined && data.sameAs(k, before, p)) {
        report.unchanged++;
        // Owed unless the lexical index is known to hold this record's document (checked by hash when paid).
        if (!data.hasCodeAt(k)) stale.add(id), gone.delete(id);
        continue;
      }
      stale.add(id), gone.delete(id);
      const record = data.at(k);
      const previous = p === undefined ? undefined : before.at(p);
      if (!previous) report.added.push(id);
      else if (previous.contentHash !== record.contentHash || previous.lexicalHash !== record.lexicalHash) report.updated.push(id);
      else if (previous.path !== record.path || previous.state !== record.state) report.moved.push(id);
      else report.unchanged++;
      if (!previous || previous.contentHash !== record.contentHash) contentChanged.push(id);
    }
    for (const id of previousAt.keys()) {
      if (now.has(id)) continue;
      report.removed.push(id);
      gone.add(id);
      stale.delete(id);
      this.#vectors?.remove(id);
    }
    report.codeChanged = [...sources.stale].filter((id) => previousAt.has(id) && data.sameAs(now.get(id)!, before, previousAt.get(id)!)).sort();
    data.willRead(sources.stale.size);
    for (const id of sources.stale) {
      // Its code is read again when paid (now, or by the next search): until then it has none to trust.
      this.#indexed.get(id)!.code = undefined;
      stale.add(id);
    }
    if (sources.settled || sources.stale.size) this.#dirty = true;
    // A parsed file that lost its id to another file (a duplicate id) was built as it was parsed: the indexed one's is owed.
    for (const { record } of changes.parsed.values()) {
      const k = now.get(record.id);
      if (k === undefined || data.decodedAt(k) !== record) stale.add(record.id);
    }
    if (this.#lexical) await this.#pay(changes.parsed);
    if (this.embedder) {
      data.loadLines();
      const need = new Map<string, CatalogueRecord>();
      for (const id of contentChanged) need.set(id, this.#indexed.get(id)!);
      for (const id of this.#indexed.keys()) if (!this.#vectors?.has(id)) need.set(id, this.#indexed.get(id)!);
      const all = [...need.values()];
      const textOf = async (record: CatalogueRecord): Promise<string | undefined> => {
        const text = embedTexts.get(record.contentHash);
        if (text !== undefined) return text;
        const entry = await this.#entryOf(record);
        return entry ? entryDocument(entry).embedText : undefined;
      };
      const limit = options.embedLimit ?? Infinity;
      // A search must not wait minutes for a cold index's vectors (inject never blocks a review): it embeds a few
      // and ranks the rest lexically, and says so; `cairn index` (or the watcher) embeds everything, with progress.
      if (all.length > limit && limit > 0) {
        const message = `${all.length - limit} entries have no vector yet; they are ranked by words alone until \`cairn index\` embeds them (${this.embedder.id})`;
        report.warnings.push(message);
      }
      await this.#embed(all.slice(0, limit), textOf, report, options.onProgress);
    }
    for (const list of [report.added, report.updated, report.removed, report.moved]) list.sort();
    if (changes.changed || report.added.length + report.updated.length + report.removed.length + report.moved.length > 0) this.#dirty = true;
    return report;
  }

  async #embed(records: CatalogueRecord[], textOf: (r: CatalogueRecord) => Promise<string | undefined>, report: SyncReport, onProgress?: Progress): Promise<void> {
    const embedder = this.embedder;
    if (!embedder || !records.length) return;
    const cache = await EmbeddingCache.open(path.join(this.layout.cache, "embeddings"), embedder.id, embedder.dims);
    if (!this.#vectors) {
      const { VectorStore } = await import("./vectors.js");
      this.#vectors = await VectorStore.create(embedder.dims, { capacity: Math.max(1024, records.length) });
    }
    const missing: Array<{ id: string; hash: string; text: string }> = [];
    for (const record of records) {
      const cached = cache.get(record.contentHash);
      if (cached) {
        this.#vectors.upsert(record.id, cached);
        this.#vectorsChanged = true;
        report.reused++;
        continue;
      }
      const text = await textOf(record);
      if (text !== undefined) missing.push({ id: record.id, hash: record.contentHash, text });
    }
    if (this.#embedderFailed) return;
    if (missing.length) onProgress?.(0, missing.length, "embedding");
    try {
      for (let i = 0; i < missing.length; i += EMBED_BATCH) {
        const batch = missing.slice(i, i + EMBED_BATCH);
        const vectors = await embedder.embed(batch.map((d) => d.text));
        for (const [j, item] of batch.entries()) {
          cache.set(item.hash, vectors[j]!);
          this.#vectors.upsert(item.id, vectors[j]!);
        }
        this.#vectorsChanged = true;
        report.embedded += batch.length;
        onProgress?.(Math.min(i + EMBED_BATCH, missing.length), missing.length, "embedding");
      }
    } catch (error) {
      this.#embedderFailed = true;
      const message = `embedding model unavailable (${(error as Error).message}); the index is lexical-only until it loads`;
      report.warnings.push(message);
      this.warnings.push(message);
    } finally {
      await cache.flush(new Set(this.#data.records.map((r) => r.contentHash)));
    }
  }

  /** Fold a large overlay into an in-memory segment (a first index at 100k entries must not hold 100k analysed entries as maps). */
  #foldOverlay(): void {
    const lexical = this.#lexical!;
    const { overlay, base } = lexical.pending;
    if (overlay < FOLD_AT || (overlay < base / 4 && overlay < FOLD_MAX)) return;
    // The parse's garbage first: the compaction allocates a second copy of the segment (native memory) on top of the heap.
    if (base >= COLLECT_FROM_ENTRIES) collectGarbage();
    const bytes = lexical.compact();
    this.#setLexical(new LayeredLexical(this.#params, Segment.open(bytes)));
    this.#folded = bytes;
    // The folded overlay (thousands of analysed entries) is garbage now: collect it before it is promoted and piles up.
    collectGarbage();
  }

  /** Segment bytes folded in memory since the last save: the next save writes them (with what was added since). */
  #folded: Uint8Array | null = null;

  async #save(): Promise<boolean> {
    if (!this.#dirty) return false;
    // A committed `.cairn` link (or one inside it) would make this write there and delete old generations there.
    await assertTreeContained(this.layout.root, this.layout.cache, "write the search index");
    const current = await readManifest(this.layout.cache);
    const theirs = current.kind === "ok" && current.manifest.format === INDEX_FORMAT ? current.manifest : null;
    const moved = theirs !== null && theirs.generation !== this.#manifest?.generation;
    // Another process saved since this one opened: only a process holding the whole lexical index can write a consistent
    // index on top; a catalogue-only refresh leaves it (the next command repeats that small work).
    if (moved && !this.#lexical) return false;
    const generation = `gen-${Date.now().toString(36)}-${process.pid}`;
    const dir = path.join(this.layout.cache, generation);
    await mkdir(dir, { recursive: true });
    const previous = this.#manifest?.files ?? { catalogue: "", records: "", segment: null, delta: null, vectors: null };
    const files: Manifest["files"] = { catalogue: `${generation}/catalogue.bin`, records: previous.records, segment: previous.segment, delta: previous.delta, vectors: previous.vectors };
    const lexical = this.#lexical;
    if (lexical) {
      const pending = lexical.pending;
      const segmentGone = files.segment !== null && !existsSync(path.join(this.layout.cache, files.segment));
      if (this.#folded || moved || segmentGone || (pending.base === 0 && pending.overlay > 0) || pending.overlay + pending.dead > Math.max(COMPACT_MIN, pending.base / 10)) {
        if (pending.base >= COLLECT_FROM_ENTRIES && pending.overlay + pending.dead > 0) collectGarbage();
        const bytes = this.#folded && pending.overlay + pending.dead === 0 ? this.#folded : lexical.compact();
        this.#folded = null;
        files.segment = `segments/lexical-${generation}.bin`;
        await mkdir(path.join(this.layout.cache, "segments"), { recursive: true });
        await writeFileAtomic(path.join(this.layout.cache, files.segment), bytes);
        files.delta = null;
        this.#setLexical(new LayeredLexical(this.#params, Segment.open(bytes)));
        // A compaction's working set (the merged dictionary, every document's lengths) is garbage now: collect it
        // before the catalogue is encoded, or a first index of 100k entries holds both at once.
        if (pending.base + pending.overlay >= FOLD_AT) collectGarbage();
      } else if (lexical.changed || files.delta === null || moved) {
        if (pending.overlay + pending.dead > 0) {
          files.delta = `${generation}/lexical-delta.json`;
          await writeFileAtomic(path.join(this.layout.cache, files.delta), JSON.stringify(lexical.delta()));
        } else files.delta = null;
      }
      if (pending.base === 0 && pending.overlay === 0) files.segment = null;
    }
    if (!this.embedder) files.vectors = null;
    else if (this.#vectors && (this.#vectorsChanged || moved || files.vectors === null)) {
      if (this.#vectors.deletedRatio > 0.3) await this.#vectors.compact();
      files.vectors = this.#vectors.size > 0 ? `${generation}/vectors` : null;
      if (files.vectors) await this.#vectors.save(path.join(this.layout.cache, files.vectors));
      this.#vectorsChanged = false;
    }
    const debt: LexicalDebt = { stale: [...new Set([...this.#debt.stale, ...this.#owed])].sort(), gone: [...this.#debt.gone].sort() };
    // The records are appended to the saved index's records file, unless another process saved meanwhile (or it is mostly unused lines).
    await mkdir(path.join(this.layout.cache, "records"), { recursive: true });
    const target = { current: moved || !previous.records ? null : path.join(this.layout.cache, previous.records), fresh: path.join(this.layout.cache, "records", `records-${generation}.jsonl`) };
    const saved = await writeCatalogue(path.join(this.layout.cache, files.catalogue), target, this.#data, debt, catalogueDirs(this.layout));
    files.records = path.relative(this.layout.cache, saved.records).split(path.sep).join("/");
    // From now on the catalogue reads what was just saved: the next save appends only what changes after this one.
    this.#setData(this.#data.rebased(saved.storage));
    const embedder = this.embedder && files.vectors ? { id: this.embedder.id, dims: this.embedder.dims } : null;
    const seal = cacheSeal(this.layout.cache);
    const manifest: Manifest = { format: INDEX_FORMAT, embedder, generation, files, updated: new Date().toISOString(), ...(seal ? { seal } : {}) };
    await writeManifest(this.layout.cache, manifest);
    this.#manifest = manifest;
    this.#dirty = false;
    await collectGenerations(this.layout.cache, manifest);
    return true;
  }

  #closeSegment(): void {
    if (this.#segmentFd !== null) closeSync(this.#segmentFd);
    this.#segmentFd = null;
  }
}

function catalogueDirs(layout: Layout): CatalogueDirs {
  return { active: relativePath(layout, layout.knowledge), archived: relativePath(layout, layout.archive) };
}

/** The same fields and tokenizer (weights may differ: they apply at query time). */
function sameAnalysis(saved: LexicalParams, current: LexicalParams): boolean {
  return JSON.stringify(Object.keys(saved.fields)) === JSON.stringify(LEXICAL_FIELDS) && JSON.stringify(saved.tokenizer) === JSON.stringify(current.tokenizer);
}

function strings(value: unknown): string[] {
  if (typeof value === "string") return [value];
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];
}
