/**
 * The vector store: an HNSW graph (hnswlib-node, loaded lazily) over L2-normalised vectors in
 * cosine space, keyed by entry id, with a raw copy of every vector for exact search, compaction
 * and rebuild-free reloads. Persistence lives in vector-files.ts, arithmetic in vector-math.ts.
 *
 * Search strategy, from bench/hnsw.ts (figures in bench/results/hnsw.json):
 * - Up to `exactBelow` live vectors (default 1,000) search scans exactly. The graph is already
 *   faster from a few hundred vectors on and finds the true top 10 on clustered data, so the scan
 *   buys exactness, not speed; at 1,000 vectors it costs about a millisecond.
 * - Unfiltered, larger: the graph, with efSearch 64 (recall@10 0.99 on clustered 100k).
 * - Filtered, larger: the share of ids passing the filter is estimated on a sample. When many
 *   pass, the graph is walked unfiltered for 2k/share neighbours (beam: twice that) and the
 *   passing ones kept (recall@10 >= 0.99); when that beam would exceed the number of ids passing
 *   (at 100k: under ~2% pass), or the walk yields fewer than k, the passing ids are scanned exactly.
 *   hnswlib's own filtered walk calls back into JS per visited node and visits most of the graph
 *   for narrow filters; it was slower than one of those two at every share measured, so it is not used.
 */
import type { HierarchicalNSW } from "hnswlib-node";
import { CairnError } from "../errors.js";
import {
  beginVectorSave,
  corrupt,
  finishVectorSave,
  readVectorData,
  readVectorManifest,
  verifyIndexFile,
  type PendingSave,
} from "./vector-files.js";
import { TopK, compareHits, dotAt, equalAt, normalised, type VectorHit } from "./vector-math.js";

export type { VectorHit } from "./vector-math.js";

/** Options for a new vector store. */
export type VectorStoreOptions = {
  /** Vectors the graph holds before it first grows (it doubles when full). Default 1024. */
  capacity?: number;
  /** HNSW links per node (M). Default 16. */
  m?: number;
  /** HNSW candidate list size while building. Default 100. */
  efConstruction?: number;
  /** HNSW candidate list size while searching (raised to k when k is larger). Default 64. */
  efSearch?: number;
  /** At or below this many candidate vectors, search scans exactly instead of walking the graph. Default 1000. */
  exactBelow?: number;
};

/** Options that may be changed when loading a saved store (the graph's build parameters are fixed). */
export type VectorLoadOptions = Pick<VectorStoreOptions, "efSearch" | "exactBelow">;

/** Default build and search parameters, chosen from bench/hnsw.ts. */
export const VECTOR_DEFAULTS = { capacity: 1024, m: 16, efConstruction: 100, efSearch: 64, exactBelow: 1000 } as const;

/** Extra neighbours fetched from the graph so that equal similarities at the k-th place are cut by id. */
const TIE_MARGIN = 4;
/** Filtered search over the graph fetches this many times k / (share of ids passing) neighbours. */
const OVERFETCH_FACTOR = 2;
/** Labels sampled to estimate a filter's share. */
const FILTER_SAMPLE = 512;
const SEED = 100;

type Hnswlib = typeof import("hnswlib-node");
let hnswlib: Promise<Hnswlib> | undefined;

/** Loads the native addon on first use only, so commands that never search never load it. */
function loadHnswlib(): Promise<Hnswlib> {
  hnswlib ??= import("hnswlib-node").then(
    // A CommonJS addon: under Node's ESM loader its exports arrive as `default` only.
    (mod) => (mod as { default?: Hnswlib }).default ?? mod,
    (error: unknown) => {
      hnswlib = undefined;
      throw new CairnError("IO", "Could not load the native module hnswlib-node; reinstall dependencies (npm ci)", { cause: error });
    },
  );
  return hnswlib;
}

type Params = { dims: number; m: number; efConstruction: number; efSearch: number; exactBelow: number };

export class VectorStore {
  private readonly params: Params;
  private readonly lib: Hnswlib;
  private index: HierarchicalNSW;
  /** Normalised vectors by label: label l occupies [l * dims, (l + 1) * dims). */
  private slab: Float32Array;
  /** Label -> id; null once the label is deleted. Labels are never reused until compaction. */
  private labels: (string | null)[];
  /** Id -> its live label. */
  private live: Map<string, number>;
  /** The last save in progress (settled), so saves run one at a time. */
  private saving: Promise<unknown> = Promise.resolve();

  private constructor(lib: Hnswlib, params: Params, index: HierarchicalNSW, slab: Float32Array, labels: (string | null)[]) {
    this.lib = lib;
    this.params = params;
    this.index = index;
    this.slab = slab;
    this.labels = labels;
    this.live = new Map();
    labels.forEach((id, label) => {
      if (id !== null) this.live.set(id, label);
    });
  }

  /** An empty store for vectors of `dims` dimensions. */
  static async create(dims: number, options: VectorStoreOptions = {}): Promise<VectorStore> {
    const params = resolveParams(dims, options);
    const capacity = positiveInt(options.capacity ?? VECTOR_DEFAULTS.capacity, "capacity");
    const lib = await loadHnswlib();
    const index = newGraph(lib, params, capacity);
    return new VectorStore(lib, params, index, new Float32Array(capacity * dims), []);
  }

  /** Opens a store saved by `save`; throws CairnError("IO") when files are missing or damaged, so the caller rebuilds. */
  static async load(dir: string, options: VectorLoadOptions = {}): Promise<VectorStore> {
    const manifest = await readVectorManifest(dir);
    const indexFile = await verifyIndexFile(dir, manifest);
    const lib = await loadHnswlib();
    const index = new lib.HierarchicalNSW("cosine", manifest.dims);
    try {
      await index.readIndex(indexFile);
    } catch (error) {
      throw corrupt(indexFile, "hnswlib could not read it", error);
    }
    if (index.getNumDimensions() !== manifest.dims || index.getCurrentCount() !== manifest.labels.length) {
      throw corrupt(
        indexFile,
        `graph has ${index.getCurrentCount()} vectors of ${index.getNumDimensions()} dims, manifest expects ${manifest.labels.length} of ${manifest.dims}`,
      );
    }
    const live = manifest.labels.filter((id) => id !== null);
    if (new Set(live).size !== live.length) throw corrupt(indexFile, "the manifest maps one id to two live vectors");
    const params = resolveParams(manifest.dims, { ...manifest, ...options });
    index.setEf(params.efSearch);
    const slab = await readVectorData(dir, manifest, index.getMaxElements());
    return new VectorStore(lib, params, index, slab, manifest.labels);
  }

  /** Vector dimensions. */
  get dims(): number {
    return this.params.dims;
  }

  /** Number of live (non-deleted) vectors. */
  get size(): number {
    return this.live.size;
  }

  /** Share of graph nodes that are deleted; compact when it grows (e.g. above 0.2). */
  get deletedRatio(): number {
    const total = this.labels.length;
    return total === 0 ? 0 : (total - this.live.size) / total;
  }

  /** HNSW candidate list size while searching; changeable at any time, persisted by `save`. */
  get efSearch(): number {
    return this.params.efSearch;
  }

  set efSearch(value: number) {
    this.params.efSearch = positiveInt(value, "efSearch");
    this.index.setEf(value);
  }

  /** At or below this many candidates search scans exactly; changeable at any time, not persisted. */
  get exactBelow(): number {
    return this.params.exactBelow;
  }

  set exactBelow(value: number) {
    this.params.exactBelow = nonNegativeInt(value, "exactBelow");
  }

  /** True when `id` has a live vector. */
  has(id: string): boolean {
    return this.live.has(id);
  }

  /** Live ids in ascending order. */
  ids(): string[] {
    return [...this.live.keys()].sort();
  }

  /** Adds or replaces the vector for `id` (stored normalised). Re-adding an identical vector is a no-op. */
  upsert(id: string, vector: Float32Array): void {
    const dims = this.params.dims;
    const unit = normalised(vector, dims, `vector for ${id}`);
    const previous = this.live.get(id);
    if (previous !== undefined && equalAt(unit, this.slab, previous * dims)) return;
    const label = this.labels.length;
    this.reserve(label + 1);
    this.index.addPoint(Array.from(unit), label);
    this.slab.set(unit, label * dims);
    this.labels.push(id);
    this.live.set(id, label);
    if (previous !== undefined) this.forget(previous);
  }

  /** Removes the vector for `id` (marked deleted in the graph until `compact`). Unknown ids are ignored. */
  remove(id: string): void {
    const label = this.live.get(id);
    if (label === undefined) return;
    this.live.delete(id);
    this.forget(label);
  }

  /** A copy of the stored (normalised) vector for `id`, or undefined. */
  get(id: string): Float32Array | undefined {
    const label = this.live.get(id);
    if (label === undefined) return undefined;
    const dims = this.params.dims;
    return this.slab.slice(label * dims, (label + 1) * dims);
  }

  /** The k most similar live vectors (optionally only ids passing `filter`), best first, ties by id. */
  search(vector: Float32Array, k: number, filter?: (id: string) => boolean): VectorHit[] {
    const query = normalised(vector, this.params.dims, "search query");
    const want = Math.min(Math.floor(k), this.live.size);
    if (!(want > 0)) return [];
    if (this.live.size <= this.params.exactBelow) {
      return this.scan(query, want, filter ? this.liveLabels(filter) : this.live.values());
    }
    if (!filter) return this.walk(query, want);
    // When many ids pass, walk the unfiltered graph for 2k/share neighbours (beam twice that) and
    // keep the passing ones; when that beam would exceed the number passing, scan those instead.
    const share = this.sampleShare(filter);
    const fetch = Math.ceil((want * OVERFETCH_FACTOR) / share);
    const ef = Math.max(this.params.efSearch, 2 * fetch);
    if (share > 0 && ef <= share * this.live.size) {
      this.index.setEf(ef);
      try {
        const hits = this.walk(query, fetch).filter((hit) => filter(hit.id));
        if (hits.length >= want) return hits.slice(0, want);
      } finally {
        this.index.setEf(this.params.efSearch);
      }
    }
    return this.scan(query, want, this.liveLabels(filter));
  }

  /** Brute-force k nearest (optionally filtered): always exact; for recall checks and small stores. */
  exact(vector: Float32Array, k: number, filter?: (id: string) => boolean): VectorHit[] {
    const query = normalised(vector, this.params.dims, "search query");
    const want = Math.min(Math.floor(k), this.live.size);
    if (!(want > 0)) return [];
    return this.scan(query, want, filter ? this.liveLabels(filter) : this.live.values());
  }

  /** Rebuilds the graph from the live vectors only (in label order, so the result is deterministic). */
  async compact(): Promise<void> {
    const dims = this.params.dims;
    const order = [...this.live.values()].sort((a, b) => a - b);
    const capacity = Math.max(VECTOR_DEFAULTS.capacity, Math.ceil(order.length * 1.25));
    const index = newGraph(this.lib, this.params, capacity);
    const slab = new Float32Array(capacity * dims);
    const labels: string[] = [];
    for (const [label, old] of order.entries()) {
      const unit = this.slab.subarray(old * dims, (old + 1) * dims);
      index.addPoint(Array.from(unit), label);
      slab.set(unit, label * dims);
      labels.push(this.labels[old]!);
    }
    this.index = index;
    this.slab = slab;
    this.labels = labels;
    this.live = new Map(labels.map((id, label) => [id, label]));
  }

  /**
   * Writes the store to `dir` atomically: readers see the old complete index or the new one, never
   * a mix. Safe to call while the store keeps changing: it saves the state at the time of the call.
   */
  save(dir: string): Promise<void> {
    let pending: PendingSave;
    try {
      pending = beginVectorSave(dir, (graphFile) => this.capture(graphFile));
    } catch (error) {
      return Promise.reject(error);
    }
    // Saves of one store finish one after another, so their clean-ups cannot remove each other's files.
    const run = this.saving.then(() => finishVectorSave(pending));
    this.saving = run.catch(() => undefined);
    return run;
  }

  /**
   * Writes the graph and captures the matching labels and vectors in one synchronous step. The
   * graph is written synchronously because hnswlib's async write races with addPoint/resizeIndex.
   * Labels are append-only and the slab is replaced (never rewritten) on growth or compaction, so
   * the vectors view stays valid after this returns.
   */
  private capture(graphFile: string): Pick<PendingSave, "draft" | "vectors"> {
    const { dims, m, efConstruction, efSearch } = this.params;
    this.index.writeIndexSync(graphFile);
    const labels = this.labels.slice();
    const vectors = this.slab.subarray(0, labels.length * dims);
    return { draft: { dims, space: "cosine", m, efConstruction, efSearch, labels }, vectors };
  }

  private forget(label: number): void {
    this.index.markDelete(label);
    this.labels[label] = null;
  }

  private reserve(count: number): void {
    const capacity = this.index.getMaxElements();
    if (count <= capacity) return;
    const next = Math.max(count, capacity * 2);
    this.index.resizeIndex(next);
    const slab = new Float32Array(next * this.params.dims);
    slab.set(this.slab);
    this.slab = slab;
  }

  private liveLabels(filter: (id: string) => boolean): number[] {
    const out: number[] = [];
    for (const [id, label] of this.live) if (filter(id)) out.push(label);
    return out;
  }

  private scan(query: Float32Array, want: number, labels: Iterable<number>): VectorHit[] {
    const top = new TopK(want);
    const dims = this.params.dims;
    for (const label of labels) {
      const similarity = clamp(dotAt(query, this.slab, label * dims));
      if (top.admits(similarity)) top.push({ id: this.labels[label]!, similarity });
    }
    return top.sorted();
  }

  private walk(query: Float32Array, want: number): VectorHit[] {
    const fetch = Math.min(want + TIE_MARGIN, this.live.size);
    const result = this.index.searchKnn(Array.from(query), fetch);
    const dims = this.params.dims;
    const hits = result.neighbors.map((label) => ({
      id: this.labels[label]!,
      similarity: clamp(dotAt(query, this.slab, label * dims)),
    }));
    return hits.sort(compareHits).slice(0, want);
  }

  /** Share of live ids passing `filter`, estimated on up to FILTER_SAMPLE labels spread evenly over the store. */
  private sampleShare(filter: (id: string) => boolean): number {
    const step = Math.max(1, Math.floor(this.labels.length / FILTER_SAMPLE));
    let seen = 0;
    let passed = 0;
    for (let label = 0; label < this.labels.length; label += step) {
      const id = this.labels[label];
      if (id == null) continue;
      seen++;
      if (filter(id)) passed++;
    }
    return seen === 0 ? 0 : passed / seen;
  }
}

function newGraph(lib: Hnswlib, params: Params, capacity: number): HierarchicalNSW {
  const index = new lib.HierarchicalNSW("cosine", params.dims);
  index.initIndex({ maxElements: capacity, m: params.m, efConstruction: params.efConstruction, randomSeed: SEED });
  index.setEf(params.efSearch);
  return index;
}

function resolveParams(dims: number, options: VectorStoreOptions): Params {
  return {
    dims: positiveInt(dims, "dims"),
    m: positiveInt(options.m ?? VECTOR_DEFAULTS.m, "m", 2),
    efConstruction: positiveInt(options.efConstruction ?? VECTOR_DEFAULTS.efConstruction, "efConstruction"),
    efSearch: positiveInt(options.efSearch ?? VECTOR_DEFAULTS.efSearch, "efSearch"),
    exactBelow: nonNegativeInt(options.exactBelow ?? VECTOR_DEFAULTS.exactBelow, "exactBelow"),
  };
}

function positiveInt(value: number, name: string, min = 1): number {
  if (!Number.isInteger(value) || value < min) {
    throw new CairnError("USAGE", `Vector store option ${name}: expected an integer >= ${min}, e.g. 16, got ${value}`);
  }
  return value;
}

function nonNegativeInt(value: number, name: string): number {
  if (!Number.isInteger(value) || value < 0) {
    throw new CairnError("USAGE", `Vector store option ${name}: expected an integer >= 0, e.g. 2000, got ${value}`);
  }
  return value;
}

function clamp(similarity: number): number {
  return similarity > 1 ? 1 : similarity < -1 ? -1 : similarity;
}
