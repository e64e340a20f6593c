/**
 * Embedding cache keyed by content hash + embedder id: one append-only binary file per embedder,
 * records of [32-byte sha256][dims float32]. Switching branches does not re-embed unchanged text.
 *
 * Sealed like the index (src/store/cache-seal.ts): `<file>.seal` holds the seal of the directory it was written in.
 * A cache file that arrived by a commit would hand any entry the vector its author chose (ranking it first for every
 * query, or burying another) once an embedder ranks: it never carries a matching seal, so it is not read, and the
 * first flush replaces it. A file with no seal at all (written by a cairn before seals) is kept when git does not
 * track it.
 */
import { existsSync } from "node:fs";
import { appendFile, mkdir, readFile, rename, writeFile } from "node:fs/promises";
import path from "node:path";
import { cacheSeal } from "../store/cache-seal.js";
import { isTrackedByGit } from "../store/tracked.js";

export class EmbeddingCache {
  readonly file: string;
  readonly dims: number;
  readonly #vectors = new Map<string, Float32Array>();
  #pending: Buffer[] = [];
  #stale = 0;
  /** The file on disk is not this directory's (no or another seal): the next flush replaces it whole and seals it. */
  #replace = false;

  private constructor(file: string, dims: number) {
    this.file = file;
    this.dims = dims;
  }

  /** Open (or start) the cache for one embedder under `dir`. A truncated tail from a crash is ignored. */
  static async open(dir: string, embedderId: string, dims: number): Promise<EmbeddingCache> {
    const safe = embedderId.replace(/[^A-Za-z0-9._-]+/g, "_");
    const cache = new EmbeddingCache(path.join(dir, `${safe}.${dims}.bin`), dims);
    const seal = await readFile(`${cache.file}.seal`, "utf8").catch(() => undefined);
    const read = () => readFile(cache.file).catch(() => Buffer.alloc(0));
    let data = Buffer.alloc(0);
    if (seal !== undefined && seal === cacheSeal(dir)) data = await read();
    else {
      // Not sealed here: the next flush writes it whole and seals it. Its vectors are kept only when it is an older
      // cairn's cache (no seal file) that git does not track; git is asked once, by the first process after the upgrade.
      cache.#replace = true;
      if (seal === undefined && existsSync(cache.file) && !(await isTrackedByGit(dir, cache.file))) data = await read();
    }
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
    if (this.#replace || (keep && (unused > 4 * Math.max(keep.size, 1000) || this.#stale > this.#vectors.size))) {
      if (keep && !this.#replace) for (const key of [...this.#vectors.keys()]) if (!keep.has(key)) this.#vectors.delete(key);
      const records = [...this.#vectors].map(([key, vec]) => Buffer.concat([Buffer.from(key, "hex"), Buffer.from(vec.buffer, vec.byteOffset, vec.byteLength)]));
      const tmp = `${this.file}.${process.pid}.tmp`;
      await writeFile(tmp, Buffer.concat(records));
      await rename(tmp, this.file);
      // The seal after the vectors: a crash between leaves a file that is not trusted and is replaced again.
      if (this.#replace) await writeFile(`${this.file}.seal`, cacheSeal(path.dirname(this.file)) ?? "");
      this.#replace = false;
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
