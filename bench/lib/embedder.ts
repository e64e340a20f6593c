/**
 * The real default embedder for benches (loaded the way the library loads it), a wrapper that
 * serves precomputed vectors for known texts, and a cache of vectors across bench processes.
 */
import { createHash } from "node:crypto";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import type { Embedder } from "../../src/indexing/embedder.js";

export type Loaded = { kind: "loaded"; embedder: Embedder; loadMs: number } | { kind: "unavailable"; reason: string };

type EmbeddersModule = { createEmbedder: (config: { provider: "use-lite" }, options: { root: string }) => Embedder | Promise<Embedder> };

/** The default offline embedder (`{provider:"use-lite"}`), with its first embed call (model load) timed. */
export async function loadDefaultEmbedder(root: string): Promise<Loaded> {
  // A computed specifier: the embedders module is optional while it is being written.
  const specifier = ["..", "..", "src", "indexing", "embedders", "index.js"].join("/");
  let mod: EmbeddersModule;
  try {
    mod = (await import(specifier)) as EmbeddersModule;
  } catch (error) {
    return { kind: "unavailable", reason: `src/indexing/embedders/index.ts could not be loaded (${(error as Error).message.split("\n")[0]})` };
  }
  try {
    const t0 = performance.now();
    const embedder = await mod.createEmbedder({ provider: "use-lite" }, { root });
    await embedder.embed(["warm up the model"]);
    return { kind: "loaded", embedder, loadMs: performance.now() - t0 };
  } catch (error) {
    return { kind: "unavailable", reason: `the default embedder failed to load or embed (${(error as Error).message.split("\n")[0]})` };
  }
}

export type Precomputed = Embedder & {
  /** "index": every text gets a precomputed vector; "query": unknown texts go to the real model. Default "index". */
  mode: "index" | "query";
  /** Texts sent to the real model. */
  passedThrough: number;
};

/**
 * An embedder with the real one's id and dims for indexing many entries without embedding them all:
 * a text in `table` gets its own vector; in "index" mode any other text gets one of the table's
 * vectors chosen by a hash of the text (so the cycle is deterministic); in "query" mode other texts
 * (queries) are embedded by the real model.
 */
export function precomputedEmbedder(real: Embedder, table: ReadonlyMap<string, Float32Array>): Precomputed {
  const pool = [...table.values()];
  if (!pool.length) throw new Error("precomputedEmbedder needs at least one vector");
  const wrapper: Precomputed = {
    id: real.id,
    dims: real.dims,
    mode: "index",
    passedThrough: 0,
    async embed(texts: string[]): Promise<Float32Array[]> {
      const out: Float32Array[] = new Array<Float32Array>(texts.length);
      const missing: number[] = [];
      for (const [i, text] of texts.entries()) {
        const known = table.get(text);
        if (known) out[i] = known;
        else if (wrapper.mode === "index") out[i] = pool[hashIndex(text, pool.length)]!;
        else missing.push(i);
      }
      if (missing.length) {
        wrapper.passedThrough += missing.length;
        const vectors = await real.embed(missing.map((i) => texts[i]!));
        for (const [j, i] of missing.entries()) out[i] = vectors[j]!;
      }
      return out;
    },
  };
  return wrapper;
}

/**
 * An embedder with `like`'s id and dims whose `embed()` always fails: opening a saved hybrid index
 * with it gives lexical-only search over the same lexical index (the documented fallback when the
 * model cannot load) without rebuilding the index from the files.
 */
export function failingEmbedder(like: Pick<Embedder, "id" | "dims">): Embedder {
  return {
    id: like.id,
    dims: like.dims,
    embed: () => Promise.reject(new Error("embeddings disabled by the benchmark (lexical-only measurement)")),
  };
}

function hashIndex(text: string, n: number): number {
  return createHash("sha1").update(text).digest().readUInt32LE(0) % n;
}

const CACHE_DIR = path.join(os.tmpdir(), "cairn-bench-vectors");

function cacheFile(embedderId: string, sortedTexts: readonly string[]): string {
  const hash = createHash("sha256").update(embedderId).update("\0").update(sortedTexts.join("\0")).digest("hex").slice(0, 24);
  return path.join(CACHE_DIR, `${hash}.f32`);
}

/** Vectors for `texts` stored by an earlier bench process (same embedder id, same set of texts), or undefined. */
export async function readVectorCache(embedder: Embedder, texts: readonly string[]): Promise<Map<string, Float32Array> | undefined> {
  const sorted = [...new Set(texts)].sort();
  try {
    const bytes = await readFile(cacheFile(embedder.id, sorted));
    if (bytes.byteLength !== sorted.length * embedder.dims * 4) return undefined;
    const all = new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
    return new Map(sorted.map((text, i) => [text, all.slice(i * embedder.dims, (i + 1) * embedder.dims)]));
  } catch {
    return undefined;
  }
}

/** Store vectors by text for later bench processes (in the OS temp dir, outside the repository). */
export async function writeVectorCache(embedder: Embedder, vectors: ReadonlyMap<string, Float32Array>): Promise<void> {
  const sorted = [...vectors.keys()].sort();
  const all = new Float32Array(sorted.length * embedder.dims);
  for (const [i, text] of sorted.entries()) all.set(vectors.get(text)!, i * embedder.dims);
  await mkdir(CACHE_DIR, { recursive: true });
  await writeFile(cacheFile(embedder.id, sorted), new Uint8Array(all.buffer));
}
