/**
 * The persistent hybrid index in `.cairn/`: lexical (BM25) + vectors (HNSW), refreshed incrementally
 * from the entry files. Each save writes a new generation directory, then swaps the manifest
 * atomically, so readers never see a half-written index.
 */
import { statSync } from "node:fs";
import { mkdir, readdir, readFile, rm } from "node:fs/promises";
import path from "node:path";
import type { Diagnostic } from "../entry/diagnostic.js";
import { listEntryFiles, mapLimit, readEntryFile, type EntryFile } from "../store/files.js";
import type { Layout } from "../store/layout.js";
import { writeFileAtomic } from "../store/atomic.js";
import { assertTreeContained } from "../store/contain.js";
import { entryDocument, sha256, type IndexDoc } from "./document.js";
import type { Embedder } from "./embedder.js";
import { EmbeddingCache } from "./embedding-cache.js";
import { LexicalIndex } from "./lexical/index.js";
import { INDEX_FORMAT, readManifest, writeManifest, type Manifest, type ManifestEntry } from "./manifest.js";
import type { VectorHit, VectorStore } from "./vectors.js";
import type { IndexProgress as Progress, SyncReport } from "../types/indexing.js";

export type { IndexProgress as Progress, SyncReport } from "../types/indexing.js";

const EMBED_BATCH = 32;

export class SearchIndex {
  readonly layout: Layout;
  readonly embedder: Embedder | null;
  /** Standing warnings (e.g. the model failed: lexical only), repeated with every search. */
  readonly warnings: string[] = [];
  #openWarnings: string[] = [];
  #manifest: Manifest;
  #lexical: LexicalIndex;
  #vectors: VectorStore | null;
  #dirty = false;
  #embedderFailed = false;

  private constructor(layout: Layout, embedder: Embedder | null, manifest: Manifest, lexical: LexicalIndex, vectors: VectorStore | null) {
    this.layout = layout;
    this.embedder = embedder;
    this.#manifest = manifest;
    this.#lexical = lexical;
    this.#vectors = vectors;
  }

  /** Load the saved index, or start empty (with a warning when it was corrupt or built differently). */
  static async open(layout: Layout, embedder: Embedder | null, options: { rebuild?: boolean } = {}): Promise<SearchIndex> {
    const empty = (): Manifest => ({ format: INDEX_FORMAT, embedder: embedder ? { id: embedder.id, dims: embedder.dims } : null, generation: "", updated: "", entries: {} });
    const fresh = async (warning?: string) => {
      const index = new SearchIndex(layout, embedder, empty(), new LexicalIndex(), null);
      if (warning) index.#openWarnings.push(warning);
      index.#dirty = true;
      return index;
    };
    await assertTreeContained(layout.root, layout.cache, "read the search index");
    if (options.rebuild) return fresh();
    const read = await readManifest(layout.cache);
    if (read.kind === "missing") return fresh();
    if (read.kind === "corrupt") return fresh(`the index in .cairn/ was unreadable (${read.reason}); rebuilding it from the entry files`);
    const manifest = read.manifest;
    if (manifest.format !== INDEX_FORMAT) return fresh(`the index format changed (${manifest.format} → ${INDEX_FORMAT}); rebuilding`);
    const want = embedder ? `${embedder.id}/${embedder.dims}` : "none";
    const have = manifest.embedder ? `${manifest.embedder.id}/${manifest.embedder.dims}` : "none";
    if (want !== have) return fresh(`the embedder changed (${have} → ${want}); rebuilding the index`);
    const dir = path.join(layout.cache, manifest.generation);
    let lexical: LexicalIndex;
    try {
      lexical = LexicalIndex.fromJSON(JSON.parse(await readFile(path.join(dir, "lexical.json"), "utf8")));
    } catch (error) {
      return fresh(`the lexical index was unreadable (${(error as Error).message}); rebuilding`);
    }
    let vectors: VectorStore | null = null;
    if (embedder && Object.keys(manifest.entries).length) {
      try {
        const { VectorStore } = await import("./vectors.js");
        vectors = await VectorStore.load(path.join(dir, "vectors"));
      } catch (error) {
        return fresh(`the vector index was unreadable (${(error as Error).message}); rebuilding`);
      }
    }
    return new SearchIndex(layout, embedder, manifest, lexical, vectors);
  }

  /** Warnings from opening (rebuilt because corrupt, embedder changed…), reported once. */
  takeOpenWarnings(): string[] {
    const out = this.#openWarnings;
    this.#openWarnings = [];
    return out;
  }

  get size(): number {
    return Object.keys(this.#manifest.entries).length;
  }

  /** True when vectors exist for search (an embedder is configured and loaded). */
  get hasVectors(): boolean {
    return this.#vectors !== null && this.#vectors.size > 0 && !this.#embedderFailed;
  }

  meta(id: string): ManifestEntry | undefined {
    return this.#manifest.entries[id];
  }

  ids(): string[] {
    return Object.keys(this.#manifest.entries).sort();
  }

  vectorOf(id: string): Float32Array | undefined {
    return this.#vectors?.get(id);
  }

  lexicalSearch(query: string, limit: number, filter?: (id: string) => boolean) {
    return this.#lexical.search(query, { limit, ...(filter ? { filter } : {}) });
  }

  /** Number of entries in the lexical index (the N of its idf). */
  get lexicalSize(): number {
    return this.#lexical.size;
  }

  /** Query term → idf-weighted importance, for the lexical relevance floor. */
  lexicalQueryWeights(query: string): Map<string, number> {
    const n = Math.max(1, this.#lexical.size);
    const out = new Map<string, number>();
    for (const [term, qw] of this.#lexical.queryTerms(query)) {
      const df = this.#lexical.documentFrequency(term);
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
  refresh(options: { onProgress?: Progress; files?: EntryFile[] } = {}): Promise<SyncReport> {
    return this.#serial(() => this.#refresh(options));
  }

  /** Persist as a new generation, swap the manifest, remove old generations. No-op when nothing changed. */
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

  async #refresh(options: { onProgress?: Progress; files?: EntryFile[] }): Promise<SyncReport> {
    const report: SyncReport = { added: [], updated: [], removed: [], moved: [], embedded: 0, reused: 0, unchanged: 0, errors: [], warnings: [] };
    const files = options.files ?? (await listEntryFiles(this.layout));
    const byPath = new Map<string, [string, ManifestEntry]>();
    for (const [id, entry] of Object.entries(this.#manifest.entries)) byPath.set(entry.path, [id, entry]);

    // Synchronous stats: for thousands of small files one tight loop beats as many thread-pool round trips.
    const stats = files.map((f) => {
      const s = statSync(f.abs, { throwIfNoEntry: false });
      return s ? { mtimeMs: s.mtimeMs, size: s.size } : undefined;
    });
    const seen = new Map<string, { doc?: IndexDoc; keep?: ManifestEntry; mtimeMs: number; size: number }>();
    const toParse: Array<{ file: EntryFile; mtimeMs: number; size: number }> = [];
    for (const [i, file] of files.entries()) {
      const s = stats[i];
      if (!s) continue;
      const known = byPath.get(file.rel);
      if (known && known[1].mtimeMs === s.mtimeMs && known[1].size === s.size) {
        seen.set(known[0], { keep: known[1], mtimeMs: s.mtimeMs, size: s.size });
      } else toParse.push({ file, ...s });
    }
    const parsed = await mapLimit(toParse, 16, (item) => readEntryFile(this.layout, item.file));
    for (const [i, result] of parsed.entries()) {
      const item = toParse[i]!;
      if (!result.entry) {
        report.errors.push(...result.diagnostics);
        const known = byPath.get(item.file.rel); // keep the last good version of a file that stopped parsing
        if (known && !seen.has(known[0])) seen.set(known[0], { keep: known[1], mtimeMs: known[1].mtimeMs, size: known[1].size });
        continue;
      }
      const doc = entryDocument(result.entry);
      const other = seen.get(doc.id);
      if (other) {
        report.warnings.push(`duplicate id "${doc.id}" in ${item.file.rel}; indexing ${other.doc?.meta.path ?? other.keep?.path} only`);
        continue;
      }
      seen.set(doc.id, { doc, mtimeMs: item.mtimeMs, size: item.size });
    }

    const entries: Record<string, ManifestEntry> = {};
    const needVectors: IndexDoc[] = [];
    for (const [id, item] of seen) {
      const previous = this.#manifest.entries[id];
      if (item.keep) {
        entries[id] = { ...item.keep, mtimeMs: item.mtimeMs, size: item.size };
        report.unchanged++;
        continue;
      }
      const doc = item.doc!;
      const lexicalHash = sha256(JSON.stringify(doc.lexical.fields));
      entries[id] = { ...doc.meta, lexicalHash, mtimeMs: item.mtimeMs, size: item.size };
      if (!previous) report.added.push(id);
      else if (previous.contentHash !== doc.meta.contentHash || previous.lexicalHash !== lexicalHash) report.updated.push(id);
      else if (previous.path !== doc.meta.path) report.moved.push(id);
      else report.unchanged++;
      if (!previous || previous.lexicalHash !== lexicalHash) {
        this.#lexical.remove(id);
        this.#lexical.add(doc.lexical);
      }
      if (this.embedder && (!previous || previous.contentHash !== doc.meta.contentHash || !this.#vectors?.has(id))) needVectors.push(doc);
    }
    for (const id of Object.keys(this.#manifest.entries)) {
      if (seen.has(id)) continue;
      report.removed.push(id);
      this.#lexical.remove(id);
      this.#vectors?.remove(id);
    }
    if (this.embedder) {
      const needIds = new Set(needVectors.map((d) => d.id));
      const fileByPath = new Map(files.map((f) => [f.rel, f]));
      for (const [id, entry] of Object.entries(entries)) {
        if (!this.#vectors?.has(id) && !needIds.has(id) && seen.get(id)?.keep) {
          // Vector missing for an unchanged entry (e.g. the model failed last time): embed from the file.
          const file = fileByPath.get(entry.path);
          const result = file ? await readEntryFile(this.layout, file) : undefined;
          if (result?.entry) needVectors.push(entryDocument(result.entry));
        }
      }
      await this.#embed(needVectors, report, options.onProgress);
    }
    report.added.sort();
    report.updated.sort();
    report.removed.sort();
    report.moved.sort();
    const changed = report.added.length + report.updated.length + report.removed.length + report.moved.length > 0;
    const statsChanged = Object.entries(entries).some(([id, e]) => this.#manifest.entries[id]?.mtimeMs !== e.mtimeMs);
    if (changed || statsChanged) this.#dirty = true;
    this.#manifest = { ...this.#manifest, entries };
    return report;
  }

  async #embed(docs: IndexDoc[], report: SyncReport, onProgress?: Progress): Promise<void> {
    const embedder = this.embedder;
    if (!embedder || !docs.length) return;
    const cache = await EmbeddingCache.open(path.join(this.layout.cache, "embeddings"), embedder.id, embedder.dims);
    if (!this.#vectors) {
      const { VectorStore } = await import("./vectors.js");
      this.#vectors = await VectorStore.create(embedder.dims, { capacity: Math.max(1024, docs.length) });
    }
    const missing: IndexDoc[] = [];
    for (const doc of docs) {
      const cached = cache.get(doc.meta.contentHash);
      if (cached) {
        this.#vectors.upsert(doc.id, cached);
        report.reused++;
      } else missing.push(doc);
    }
    if (this.#embedderFailed) return;
    try {
      for (let i = 0; i < missing.length; i += EMBED_BATCH) {
        const batch = missing.slice(i, i + EMBED_BATCH);
        const vectors = await embedder.embed(batch.map((d) => d.embedText));
        for (const [j, doc] of batch.entries()) {
          const vector = vectors[j]!;
          cache.set(doc.meta.contentHash, vector);
          this.#vectors.upsert(doc.id, vector);
        }
        report.embedded += batch.length;
        onProgress?.(Math.min(i + EMBED_BATCH, missing.length), missing.length, "embedding");
      }
    } catch (error) {
      this.#embedderFailed = true;
      const message = `embedding model unavailable (${(error as Error).message}); the index is lexical-only until it loads`;
      report.warnings.push(message);
      this.warnings.push(message);
    } finally {
      await cache.flush(new Set(Object.values(this.#manifest.entries).map((e) => e.contentHash).concat(docs.map((d) => d.meta.contentHash))));
    }
  }

  async #save(): Promise<boolean> {
    if (!this.#dirty) return false;
    if (this.#vectors && this.#vectors.deletedRatio > 0.3) await this.#vectors.compact();
    // A committed `.cairn` link (or one inside it) would make this write there and delete old generations there.
    await assertTreeContained(this.layout.root, this.layout.cache, "write the search index");
    const generation = `gen-${Date.now().toString(36)}-${process.pid}`;
    const dir = path.join(this.layout.cache, generation);
    await mkdir(dir, { recursive: true });
    await writeFileAtomic(path.join(dir, "lexical.json"), JSON.stringify(this.#lexical.toJSON()));
    if (this.#vectors && this.#vectors.size > 0) await this.#vectors.save(path.join(dir, "vectors"));
    const embedder = this.embedder ? { id: this.embedder.id, dims: this.embedder.dims } : null;
    this.#manifest = { ...this.#manifest, format: INDEX_FORMAT, embedder, generation, updated: new Date().toISOString() };
    await writeManifest(this.layout.cache, this.#manifest);
    this.#dirty = false;
    for (const name of await readdir(this.layout.cache).catch(() => [] as string[])) {
      if (name.startsWith("gen-") && name !== generation) await rm(path.join(this.layout.cache, name), { recursive: true, force: true });
    }
    return true;
  }
}
