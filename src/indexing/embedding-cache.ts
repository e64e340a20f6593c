/**
 * Embedding cache keyed by content hash + embedder id: one append-only binary file per embedder,
 * records of [32-byte sha256][dims float32]. Switching branches does not re-embed unchanged text.
 */
import { appendFile, mkdir, readFile, rename, writeFile } from "node:fs/promises";
import path from "node:path";

export class EmbeddingCache {
  readonly file: string;
  readonly dims: number;
  readonly #vectors = new Map<string, Float32Array>();
  #pending: Buffer[] = [];
  #stale = 0;

  private constructor(file: string, dims: number) {
    this.file = file;
    this.dims = dims;
  }

  /** Open (or start) the cache for one embedder under `dir`. A truncated tail from a crash is ignored. */
  static async open(dir: string, embedderId: string, dims: number): Promise<EmbeddingCache> {
    const safe = embedderId.replace(/[^A-Za-z0-9._-]+/g, "_");
    const cache = new EmbeddingCache(path.join(dir, `${safe}.${dims}.bin`), dims);
    const data = await readFile(cache.file).catch(() => Buffer.alloc(0));
    const size = 32 + dims * 4;
    for (let off = 0; off + size <= data.length; off += size) {
      const key = data.subarray(off, off + 32).toString("hex");
      const vec = new Float32Array(dims);
      Buffer.from(vec.buffer).set(data.subarray(off + 32, off + size));
      if (cache.#vectors.has(key)) cache.#stale++;
      cache.#vectors.set(key, vec);
    }
    return cache;
  }

  get size(): number {
    return this.#vectors.size;
  }

  get(contentHash: string): Float32Array | undefined {
    return this.#vectors.get(contentHash);
  }

  set(contentHash: string, vector: Float32Array): void {
    if (this.#vectors.has(contentHash)) return;
    this.#vectors.set(contentHash, vector);
    const record = Buffer.alloc(32 + this.dims * 4);
    Buffer.from(contentHash, "hex").copy(record, 0, 0, 32);
    Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength).copy(record, 32);
    this.#pending.push(record);
  }

  /** Append new records (one write); rewrite the file when it holds many duplicates or unused vectors. */
  async flush(keep?: Set<string>): Promise<void> {
    await mkdir(path.dirname(this.file), { recursive: true });
    const unused = keep ? [...this.#vectors.keys()].filter((k) => !keep.has(k)).length : 0;
    // Keep vectors of other branches' entries unless the cache has grown to several times what is live.
    if (keep && (unused > 4 * Math.max(keep.size, 1000) || this.#stale > this.#vectors.size)) {
      for (const key of [...this.#vectors.keys()]) if (!keep.has(key)) this.#vectors.delete(key);
      const records = [...this.#vectors].map(([key, vec]) => Buffer.concat([Buffer.from(key, "hex"), Buffer.from(vec.buffer, vec.byteOffset, vec.byteLength)]));
      const tmp = `${this.file}.${process.pid}.tmp`;
      await writeFile(tmp, Buffer.concat(records));
      await rename(tmp, this.file);
      this.#pending = [];
      this.#stale = 0;
      return;
    }
    if (!this.#pending.length) return;
    const chunk = Buffer.concat(this.#pending);
    this.#pending = [];
    await appendFile(this.file, chunk);
  }
}
