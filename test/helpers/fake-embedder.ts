/**
 * A deterministic embedder for tests that are NOT about embeddings: hashed bag of lowercase words
 * (feature hashing into `dims` buckets), L2-normalised. Similar wording → similar vectors.
 */
import { createHash } from "node:crypto";
import type { Embedder } from "../../src/indexing/embedder.js";

export function fakeEmbedder(dims = 64, id = "fake-bow@1"): Embedder & { calls: number; texts: number } {
  const embedder = {
    id,
    dims,
    calls: 0,
    texts: 0,
    async embed(texts: string[]): Promise<Float32Array[]> {
      embedder.calls++;
      embedder.texts += texts.length;
      return texts.map((text) => {
        const v = new Float32Array(dims);
        for (const word of text.toLowerCase().match(/[a-z0-9_]+/g) ?? []) {
          const h = createHash("md5").update(word).digest();
          v[h.readUInt32LE(0) % dims]! += h[4]! & 1 ? 1 : -1;
        }
        let norm = Math.hypot(...v);
        if (norm === 0) {
          v[0] = 1;
          norm = 1;
        }
        return v.map((x) => x / norm);
      });
    },
  };
  return embedder;
}
