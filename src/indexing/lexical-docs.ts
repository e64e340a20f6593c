/**
 * The lexical side of the search index (search-index.ts): a layered BM25F index (a binary base segment plus
 * a saved delta) loaded on first search, and the documents it owes. An id whose catalogue record changed,
 * whose anchored source files changed (entry-docs.ts), or whose document could not be built (its file
 * changed or vanished meanwhile) stays `stale` until the lexical index holds the document of its current
 * record (compared by hash), whether the index is loaded now (paid in the same refresh) or later (paid when
 * a search loads it).
 */
import { closeSync, existsSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import path from "node:path";
import type { Entry } from "../entry/types.js";
import { CairnError } from "../errors.js";
import { writeFileAtomic } from "../store/atomic.js";
import { entryFileFor, mapLimit, readEntryFile } from "../store/files.js";
import { COLLECT_FROM_ENTRIES, collectGarbage } from "../store/gc.js";
import type { Layout } from "../store/layout.js";
import type { CatalogueRecord } from "./catalogue.js";
import type { LexicalDebt } from "./catalogue-file.js";
import type { RecordsById, StoredCatalogue } from "./catalogue-store.js";
import type { IndexDoc } from "./document.js";
import { docHash } from "./entry-docs.js";
import { LayeredLexical, type LexicalDelta } from "./lexical/layered.js";
import { LEXICAL_FIELDS, resolveParams, type LexicalParams } from "./lexical/params.js";
import { Segment } from "./lexical/segment.js";
import type { Manifest } from "./manifest.js";

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

/** The catalogue the documents are built from: the records by id, and the stored catalogue (to read many at once). */
export type DocSource = { indexed: RecordsById; data: StoredCatalogue };

/** The saved lexical files a search index was opened with (index-files.ts `openLexicalFiles`). */
export type SavedLexical = { fd: number | null; delta: string | null; problem: string | null; debt: LexicalDebt };

export class LexicalDocs {
  readonly #layout: Layout;
  readonly #repos: Record<string, string>;
  readonly #params: LexicalParams = resolveParams();
  #lexical: LayeredLexical | null = null;
  /** The base segment's file descriptor, opened with the manifest so a later save elsewhere cannot pull it away. */
  #segmentFd: number | null = null;
  #deltaText: string | null = null;
  #problem: string | null = null;
  /** Ids whose lexical document must be (re)built, and ids to drop (see the header). */
  readonly debt = { stale: new Set<string>(), gone: new Set<string>() };
  /** Ids whose document could not be built in the last payment: owed again at the next refresh. */
  readonly owed = new Set<string>();
  /** Segment bytes folded in memory since the last save: the next save writes them (with what was added since). */
  #folded: Uint8Array | null = null;

  /** Told when documents were built or dropped (the next save writes them), before they are. */
  readonly #onChange: () => void;

  /** `repos`: configured other repositories (config `repos`): their anchors contribute no anchored code. */
  constructor(layout: Layout, repos: Record<string, string>, onChange: () => void) {
    this.#layout = layout;
    this.#repos = repos;
    this.#onChange = onChange;
  }

  /** Start from the saved files (read when the index is first searched) and the documents the saved index owed. */
  restore(saved: SavedLexical): void {
    this.#segmentFd = saved.fd;
    this.#deltaText = saved.delta;
    this.#problem = saved.problem ? `the lexical index was unreadable (${saved.problem}); rebuilding it` : null;
    for (const id of saved.debt.stale) this.debt.stale.add(id);
    for (const id of saved.debt.gone) this.debt.gone.add(id);
  }

  /** The lexical index when loaded (null: not yet; a catalogue-only refresh leaves its documents owed). */
  get loaded(): LayeredLexical | null {
    return this.#lexical;
  }

  /** True when loaded and nothing is owed: a search can use it as it is. */
  get ready(): boolean {
    return this.#lexical !== null && !this.debt.stale.size && !this.debt.gone.size;
  }

  /** True when documents are owed (a search, or `cairn index`, builds them). */
  get owes(): boolean {
    return this.debt.stale.size + this.debt.gone.size + this.owed.size > 0;
  }

  /** The loaded lexical index (searches call `SearchIndex.loadLexical()` first). */
  index(): LayeredLexical {
    if (!this.#lexical) throw new CairnError("INVALID", "the lexical index is not loaded: await SearchIndex.loadLexical() before searching");
    return this.#lexical;
  }

  /**
   * Load the index from the files it was opened with (once), then build what is owed. Unreadable files, or files
   * analysed differently, leave an empty index with every id owed and a warning in `warnings`.
   */
  async load(source: DocSource, warnings: string[]): Promise<LayeredLexical> {
    if (!this.#lexical) this.#set(this.#open(source, warnings));
    await this.pay(source, new Map());
    return this.index();
  }

  /**
   * The base segment and delta this index was opened with; an empty index (everything owed) when they are unreadable.
   * The segment keeps its file open and reads what a query needs when it needs it (it closes the file when replaced).
   */
  #open(source: DocSource, warnings: string[]): LayeredLexical {
    let base: Segment | null = null;
    try {
      if (this.#problem) throw new Error(this.#problem);
      const fd = this.#segmentFd;
      this.#segmentFd = null;
      base = fd === null ? null : Segment.openFile(fd, closeSync);
      if (base && !sameAnalysis(base.params, this.#params)) throw new Error("it was built with other fields or tokenizer settings");
      return LayeredLexical.restore(this.#params, base, this.#deltaText === null ? null : (JSON.parse(this.#deltaText) as LexicalDelta));
    } catch (error) {
      base?.close();
      const message = (error as Error).message;
      warnings.push(message.includes("rebuilding") || message.includes("rebuilt") ? message : `the lexical index was unreadable (${message}); rebuilding it`);
      this.debt.stale.clear();
      this.debt.gone.clear();
      for (const id of source.indexed.keys()) this.debt.stale.add(id);
      return new LayeredLexical(this.#params);
    } finally {
      this.closeSegment();
      this.#deltaText = null;
    }
  }

  /** Replace the lexical index, releasing the file the one it replaces reads. */
  #set(next: LayeredLexical): void {
    if (this.#lexical && this.#lexical !== next) this.#lexical.close();
    this.#lexical = next;
  }

  /**
   * Build what is owed (the index is loaded): drop gone ids, (re)build stale ones whose document in the lexical
   * index is not their record's (by hash). `parsed`: entries this refresh just parsed, by path (their files are not
   * read again). An entry whose file changed or vanished since the catalogue read it is owed again at the next
   * refresh, never forgotten.
   */
  async pay(source: DocSource, parsed: ReadonlyMap<string, { entry?: Entry }>): Promise<void> {
    const lexical = this.#lexical!;
    const { stale, gone } = this.debt;
    if (!stale.size && !gone.size) return;
    for (const id of gone) if (!source.indexed.has(id)) lexical.remove(id);
    gone.clear();
    const work: CatalogueRecord[] = [];
    source.data.willRead(stale.size);
    for (const id of stale) {
      const record = source.indexed.get(id);
      if (!record) lexical.remove(id);
      else if (!record.code || lexical.hashOf(id) !== docHash(record)) work.push(record);
    }
    stale.clear();
    this.#onChange();
    await this.build(work, (record) => parsed.get(record.path)?.entry);
  }

  /**
   * Build the documents of `work` (with their anchored code) into the lexical index. `parsedEntry`: an
   * entry already parsed (its file is not read again; `doc` its document when known); others are read.
   */
  async build(work: CatalogueRecord[], parsedEntry: (record: CatalogueRecord) => Entry | undefined, docOf?: (record: CatalogueRecord) => IndexDoc | undefined): Promise<void> {
    if (!work.length) return;
    // Entries anchored into the same files are built together: each batch reads a file once.
    const first = (r: CatalogueRecord) => r.anchors[0]?.path ?? "";
    work.sort((a, b) => (first(a) < first(b) ? -1 : first(a) > first(b) ? 1 : 0));
    // Anchor resolution is loaded only to build (a catalogue-only refresh never does).
    const { codeBatch, entryDocWithCode } = await import("./entry-code.js");
    for (let at = 0; at < work.length; at += BUILD_BATCH) {
      const batch = codeBatch(this.#layout.root, this.#repos);
      const slice = work.slice(at, at + BUILD_BATCH);
      // Reads overlap (a file is read once per batch whoever asks first); documents are added in order.
      const built = await mapLimit(slice, BUILD_READS, async (record) => {
        const entry = parsedEntry(record) ?? (await this.entryOf(record));
        return entry && (await entryDocWithCode(batch, entry, docOf?.(record)));
      });
      for (const [i, record] of slice.entries()) {
        const result = built[i];
        if (!result) {
          // The file no longer parses (its last good document stays) or is gone: its next change brings it back.
          if (!record.unparsed) this.owed.add(record.id);
          continue;
        }
        const { doc, code } = result;
        if (doc.lexicalHash !== record.lexicalHash) {
          // The file changed since the catalogue read it: the next refresh parses it again; index it then.
          this.owed.add(record.id);
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
  async entryOf(record: CatalogueRecord): Promise<Entry | undefined> {
    const file = entryFileFor(this.#layout, record.path);
    if (!file) return undefined;
    const { entry } = await readEntryFile(this.#layout, file);
    return entry && entry.id === record.id ? entry : undefined;
  }

  /** Fold a large overlay into an in-memory segment (a first index at 100k entries must not hold 100k analysed entries as maps). */
  #foldOverlay(): void {
    const lexical = this.#lexical!;
    const { overlay, base } = lexical.pending;
    if (overlay < FOLD_AT || (overlay < base / 4 && overlay < FOLD_MAX)) return;
    // The parse's garbage first: the compaction allocates a second copy of the segment (native memory) on top of the heap.
    if (base >= COLLECT_FROM_ENTRIES) collectGarbage();
    const bytes = lexical.compact();
    this.#set(new LayeredLexical(this.#params, Segment.open(bytes)));
    this.#folded = bytes;
    // The folded overlay (thousands of analysed entries) is garbage now: collect it before it is promoted and piles up.
    collectGarbage();
  }

  /** Forget everything (`cairn index --rebuild`): an empty index, nothing owed until the next refresh lists the files. */
  reset(): void {
    this.closeSegment();
    this.#deltaText = null;
    this.#problem = null;
    this.#set(new LayeredLexical(this.#params));
    this.#folded = null;
    this.debt.stale.clear();
    this.debt.gone.clear();
    this.owed.clear();
  }

  /** What the next save records as owed: the stale ids, those that could not be built, and the ids to drop. */
  savedDebt(): LexicalDebt {
    return { stale: [...new Set([...this.debt.stale, ...this.owed])].sort(), gone: [...this.debt.gone].sort() };
  }

  /**
   * Write the loaded index into a new generation's `files`: a new base segment when the overlay is large (or was
   * folded, or another process saved meanwhile: `moved`), else the delta when it changed. Nothing when not loaded.
   */
  async save(cache: string, generation: string, files: Manifest["files"], moved: boolean): Promise<void> {
    const lexical = this.#lexical;
    if (!lexical) return;
    const pending = lexical.pending;
    const segmentGone = files.segment !== null && !existsSync(path.join(cache, files.segment));
    if (this.#folded || moved || segmentGone || (pending.base === 0 && pending.overlay > 0) || pending.overlay + pending.dead > Math.max(COMPACT_MIN, pending.base / 10)) {
      if (pending.base >= COLLECT_FROM_ENTRIES && pending.overlay + pending.dead > 0) collectGarbage();
      const bytes = this.#folded && pending.overlay + pending.dead === 0 ? this.#folded : lexical.compact();
      this.#folded = null;
      files.segment = `segments/lexical-${generation}.bin`;
      await mkdir(path.join(cache, "segments"), { recursive: true });
      await writeFileAtomic(path.join(cache, files.segment), bytes);
      files.delta = null;
      this.#set(new LayeredLexical(this.#params, Segment.open(bytes)));
      // A compaction's working set (the merged dictionary, every document's lengths) is garbage now: collect it
      // before the catalogue is encoded, or a first index of 100k entries holds both at once.
      if (pending.base + pending.overlay >= FOLD_AT) collectGarbage();
    } else if (lexical.changed || files.delta === null || moved) {
      if (pending.overlay + pending.dead > 0) {
        files.delta = `${generation}/lexical-delta.json`;
        await writeFileAtomic(path.join(cache, files.delta), JSON.stringify(lexical.delta()));
      } else files.delta = null;
    }
    if (pending.base === 0 && pending.overlay === 0) files.segment = null;
  }

  /** Close the saved segment's file when it was never loaded. */
  closeSegment(): void {
    if (this.#segmentFd !== null) closeSync(this.#segmentFd);
    this.#segmentFd = null;
  }
}

/** The same fields and tokenizer (weights may differ: they apply at query time). */
function sameAnalysis(saved: LexicalParams, current: LexicalParams): boolean {
  return JSON.stringify(Object.keys(saved.fields)) === JSON.stringify(LEXICAL_FIELDS) && JSON.stringify(saved.tokenizer) === JSON.stringify(current.tokenizer);
}
