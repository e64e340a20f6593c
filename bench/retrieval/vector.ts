/**
 * Vector retrieval for the benchmark: embed a set's documents and queries once (cached in
 * `bench/.cache/embeddings/`, keyed by text hash + embedder id), then rank by cosine similarity.
 */
import path from "node:path";
import { sha256 } from "../../src/indexing/document.js";
import type { Embedder } from "../../src/indexing/embedder.js";
import { EmbeddingCache } from "../../src/indexing/embedding-cache.js";
import type { VectorHit } from "../../src/retrieval/fusion.js";
import type { BenchDoc, Dataset } from "./dataset.js";
import type { Ranker, Rankings } from "./ranker.js";

/** Where embeddings are cached between runs (gitignored). */
export const EMBED_CACHE_DIR = path.resolve(import.meta.dirname, "../.cache/embeddings");

/** Characters embedded per document, as the index does for an entry (`src/indexing/document.ts`). */
const EMBED_CHARS = 2000;

/** Texts per embedder call; the cache is flushed after each, so an interrupted run keeps its work. */
const CHUNK = 64;

/** The same mapping for every set: title then text (the text alone when it already starts with the title). */
export function docEmbedText(doc: BenchDoc): string {
  const title = doc.title.trim();
  const text = doc.text.trim();
  return (title && !text.startsWith(title) ? `${title}\n${text}` : text || title).slice(0, EMBED_CHARS);
}

/** One vector per document and per query id, L2-normalised. */
export type EmbeddedSet = { embedderId: string; docs: Map<string, Float32Array>; queries: Map<string, Float32Array> };

export type EmbedProgress = (done: number, total: number) => void;

/** Embed texts through the cache: only texts never seen by this embedder reach the model. */
export async function embedCached(embedder: Embedder, texts: string[], cacheDir = EMBED_CACHE_DIR, onProgress?: EmbedProgress): Promise<Float32Array[]> {
  const cache = await EmbeddingCache.open(cacheDir, embedder.id, embedder.dims);
  const keys = texts.map((t) => sha256(t));
  const missing = [...new Set(keys.map((k, i) => (cache.get(k) ? -1 : i)).filter((i) => i >= 0).map((i) => texts[i]!))];
  for (let i = 0; i < missing.length; i += CHUNK) {
    const batch = missing.slice(i, i + CHUNK);
    const vectors = await embedder.embed(batch);
    batch.forEach((text, j) => cache.set(sha256(text), vectors[j]!));
    await cache.flush();
    onProgress?.(Math.min(i + CHUNK, missing.length), missing.length);
  }
  return keys.map((k, i) => {
    const v = cache.get(k);
    if (!v) throw new Error(`No embedding for text ${i} after embedding: expected the cache to hold every text`);
    return v;
  });
}

/** Embed every document and query of a set (cached). */
export async function embedDataset(dataset: Dataset, embedder: Embedder, cacheDir = EMBED_CACHE_DIR, onProgress?: EmbedProgress): Promise<EmbeddedSet> {
  const texts = [...dataset.docs.map(docEmbedText), ...dataset.queries.map((q) => q.text)];
  const vectors = await embedCached(embedder, texts, cacheDir, onProgress);
  const n = dataset.docs.length;
  return {
    embedderId: embedder.id,
    docs: new Map(dataset.docs.map((d, i) => [d.id, vectors[i]!])),
    queries: new Map(dataset.queries.map((q, i) => [q.id, vectors[n + i]!])),
  };
}

/** Exact cosine ranking (vectors are normalised): best first, ties by ascending id. */
export function cosineRank(query: Float32Array, docs: ReadonlyMap<string, Float32Array>, depth: number, skip?: ReadonlySet<string>): VectorHit[] {
  const hits: VectorHit[] = [];
  for (const [id, v] of docs) {
    if (skip?.has(id)) continue;
    let dot = 0;
    for (let i = 0; i < v.length; i++) dot += v[i]! * (query[i] ?? 0);
    hits.push({ id, similarity: dot });
  }
  hits.sort((a, b) => b.similarity - a.similarity || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return hits.slice(0, depth);
}

/** Vector-only retrieval over precomputed embeddings. */
export function vectorOnly(embedded: EmbeddedSet, name = "vector only"): Ranker {
  return {
    name,
    rank: async (docs, queries, depth) => {
      const pool = new Map(docs.map((d) => [d.id, embedded.docs.get(d.id)!] as const).filter(([, v]) => v));
      const rankings: Rankings = new Map();
      for (const q of queries) {
        const qv = embedded.queries.get(q.id);
        rankings.set(q.id, qv ? cosineRank(qv, pool, depth).map((h) => h.id) : []);
      }
      return rankings;
    },
  };
}
