/**
 * The vector side of the search index (search-index.ts), present only when the configured embedder has a
 * ranking weight: an HNSW store (vectors.ts, loaded when opened) of one vector per entry, filled from the
 * embedding cache by content hash, the rest embedded in batches. A model that fails leaves the index
 * lexical-only, with a standing warning, until the process restarts.
 */
import path from "node:path";
import type { CatalogueRecord } from "./catalogue.js";
import type { RecordsById } from "./catalogue-store.js";
import type { Embedder } from "./embedder.js";
import { EmbeddingCache } from "./embedding-cache.js";
import type { Manifest } from "./manifest.js";
import type { VectorHit, VectorStore } from "./vectors.js";
import type { IndexProgress as Progress, SyncReport } from "../types/indexing.js";

const EMBED_BATCH = 32;

/** The records after a refresh: by id, the ids whose content changed, each one's text to embed, and the content hashes to keep cached. */
export type RefreshedRecords = { indexed: RecordsById; contentChanged: readonly string[]; textOf: (r: CatalogueRecord) => Promise<string | undefined>; keep: () => Set<string> };

export class IndexVectors {
  readonly embedder: Embedder;
  /** The index's standing warnings (repeated with every search): a failed model is reported there. */
  readonly #warnings: string[];
  #store: VectorStore | null = null;
  #changed = false;
  #failed = false;

  constructor(embedder: Embedder, warnings: string[]) {
    this.embedder = embedder;
    this.#warnings = warnings;
  }

  /**
   * Load the saved vectors of `manifest` (none when the index holds no entries). False, with a warning in
   * `warnings` when there is something to say, when they must be rebuilt: the embedder changed, or they are unreadable.
   */
  async open(cache: string, manifest: Manifest, hasEntries: boolean, warnings: string[]): Promise<boolean> {
    const embedder = this.embedder;
    const have = manifest.embedder ? `${manifest.embedder.id}/${manifest.embedder.dims}` : "none";
    if (have !== `${embedder.id}/${embedder.dims}`) {
      if (manifest.embedder) warnings.push(`the embedder changed (${have} → ${embedder.id}/${embedder.dims}); rebuilding the vectors`);
      return false;
    }
    if (!manifest.files.vectors || !hasEntries) return true;
    try {
      const { VectorStore } = await import("./vectors.js");
      this.#store = await VectorStore.load(path.join(cache, manifest.files.vectors));
      return true;
    } catch (error) {
      warnings.push(`the vector index was unreadable (${(error as Error).message}); rebuilding it`);
      return false;
    }
  }

  /** True when vectors exist for search (loaded, and the model has not failed). */
  get usable(): boolean {
    return this.#store !== null && this.#store.size > 0 && !this.#failed;
  }

  get(id: string): Float32Array | undefined {
    return this.#store?.get(id);
  }

  has(id: string): boolean {
    return this.#store?.has(id) ?? false;
  }

  remove(id: string): void {
    this.#store?.remove(id);
  }

  search(vector: Float32Array, limit: number, filter?: (id: string) => boolean): VectorHit[] {
    return this.#store ? this.#store.search(vector, limit, filter) : [];
  }

  /** Embed a query; null (with a standing warning) when the model cannot be used. */
  async embedQuery(text: string): Promise<Float32Array | null> {
    if (this.#failed) return null;
    try {
      const [vector] = await this.embedder.embed([text]);
      return vector ?? null;
    } catch (error) {
      this.#failed = true;
      this.#warnings.push(`embedding model unavailable (${(error as Error).message}); using lexical search only`);
      return null;
    }
  }

  /**
   * After a refresh: embed the entries whose content changed and those without a vector, at most `embedLimit` of
   * them (a search must not wait minutes for a cold index's vectors: inject never blocks a review; it embeds a few
   * and ranks the rest lexically, and says so; `cairn index` or the watcher embeds everything, with progress).
   */
  async update(cache: string, changed: RefreshedRecords, report: SyncReport, options: { embedLimit?: number; onProgress?: Progress }): Promise<void> {
    const need = new Map<string, CatalogueRecord>();
    for (const id of changed.contentChanged) need.set(id, changed.indexed.get(id)!);
    for (const id of changed.indexed.keys()) if (!this.has(id)) need.set(id, changed.indexed.get(id)!);
    const all = [...need.values()];
    const limit = options.embedLimit ?? Infinity;
    if (all.length > limit && limit > 0) report.warnings.push(`${all.length - limit} entries have no vector yet; they are ranked by words alone until \`cairn index\` embeds them (${this.embedder.id})`);
    await this.#embed(cache, all.slice(0, limit), changed.textOf, report, options.onProgress, changed.keep);
  }

  /**
   * Give every record of `records` its vector: from the embedding cache in `cache` by content hash, else embedded
   * (`textOf` its text). The cache keeps the vectors of `keep()`'s content hashes when flushed.
   */
  async #embed(cache: string, records: CatalogueRecord[], textOf: (r: CatalogueRecord) => Promise<string | undefined>, report: SyncReport, onProgress: Progress | undefined, keep: () => Set<string>): Promise<void> {
    const embedder = this.embedder;
    if (!records.length) return;
    const embeddings = await EmbeddingCache.open(path.join(cache, "embeddings"), embedder.id, embedder.dims);
    if (!this.#store) {
      const { VectorStore } = await import("./vectors.js");
      this.#store = await VectorStore.create(embedder.dims, { capacity: Math.max(1024, records.length) });
    }
    const missing: Array<{ id: string; hash: string; text: string }> = [];
    for (const record of records) {
      const cached = embeddings.get(record.contentHash);
      if (cached) {
        this.#store.upsert(record.id, cached);
        this.#changed = true;
        report.reused++;
        continue;
      }
      const text = await textOf(record);
      if (text !== undefined) missing.push({ id: record.id, hash: record.contentHash, text });
    }
    if (this.#failed) return;
    if (missing.length) onProgress?.(0, missing.length, "embedding");
    try {
      for (let i = 0; i < missing.length; i += EMBED_BATCH) {
        const batch = missing.slice(i, i + EMBED_BATCH);
        const vectors = await embedder.embed(batch.map((d) => d.text));
        for (const [j, item] of batch.entries()) {
          embeddings.set(item.hash, vectors[j]!);
          this.#store.upsert(item.id, vectors[j]!);
        }
        this.#changed = true;
        report.embedded += batch.length;
        onProgress?.(Math.min(i + EMBED_BATCH, missing.length), missing.length, "embedding");
      }
    } catch (error) {
      this.#failed = true;
      const message = `embedding model unavailable (${(error as Error).message}); the index is lexical-only until it loads`;
      report.warnings.push(message);
      this.#warnings.push(message);
    } finally {
      await embeddings.flush(keep());
    }
  }

  /** Forget every vector (`cairn index --rebuild`) and a failed model. */
  reset(): void {
    this.#store = null;
    this.#changed = false;
    this.#failed = false;
  }

  /** Write the vectors into a new generation's `files` when they changed (or another process saved meanwhile: `moved`). */
  async save(cache: string, generation: string, files: Manifest["files"], moved: boolean): Promise<void> {
    if (!this.#store || !(this.#changed || moved || files.vectors === null)) return;
    if (this.#store.deletedRatio > 0.3) await this.#store.compact();
    files.vectors = this.#store.size > 0 ? `${generation}/vectors` : null;
    if (files.vectors) await this.#store.save(path.join(cache, files.vectors));
    this.#changed = false;
  }
}
