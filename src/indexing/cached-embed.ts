/**
 * Embed a few texts through the embedding cache (keyed by the text's sha256 and the embedder): what
 * `check --duplicates` compares after a lexical pre-selection, so only candidates are ever embedded
 * and a second run embeds nothing that did not change.
 */
import { createHash } from "node:crypto";
import path from "node:path";
import type { Embedder } from "./embedder.js";
import { EmbeddingCache } from "./embedding-cache.js";

export type CachedEmbed = {
  /** One vector per text, in order (from the cache, else the model). */
  embed(texts: readonly string[]): Promise<Float32Array[]>;
  /** Texts the model embedded (cache misses) so far. */
  readonly embedded: number;
  /** Persist new vectors. */
  flush(): Promise<void>;
};

export async function cachedEmbed(cacheDir: string, embedder: Embedder): Promise<CachedEmbed> {
  const cache = await EmbeddingCache.open(path.join(cacheDir, "embeddings"), embedder.id, embedder.dims);
  let embedded = 0;
  return {
    get embedded() {
      return embedded;
    },
    async embed(texts) {
      const keys = texts.map((t) => createHash("sha256").update(t).digest("hex"));
      const missing = [...new Set(keys.filter((k) => !cache.get(k)))];
      if (missing.length) {
        const byKey = new Map(keys.map((k, i) => [k, texts[i]!]));
        const vectors = await embedder.embed(missing.map((k) => byKey.get(k)!));
        missing.forEach((k, i) => cache.set(k, vectors[i]!));
        embedded += missing.length;
      }
      return keys.map((k) => cache.get(k)!);
    },
    flush: () => cache.flush(),
  };
}
