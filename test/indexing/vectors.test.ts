import { spawn } from "node:child_process";
import { readdir, readFile, rm, stat, truncate, utimes, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { CairnError } from "../../src/errors.js";
import { MANIFEST_FILE } from "../../src/indexing/vector-files.js";
import { VectorStore } from "../../src/indexing/vectors.js";
import { REPO } from "../helpers/cli.js";
import { testdir } from "../helpers/fixture.js";

/** Seeded PRNG (mulberry32) so every run sees the same vectors. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function randomVectors(count: number, dims: number, seed: number): Float32Array[] {
  const next = rng(seed);
  const gauss = () => Math.sqrt(-2 * Math.log(1 - next())) * Math.cos(2 * Math.PI * next());
  return Array.from({ length: count }, () => {
    const v = Float32Array.from({ length: dims }, gauss);
    const norm = Math.hypot(...v);
    return v.map((x) => x / norm);
  });
}

async function storeOf(vectors: Float32Array[], options: Parameters<typeof VectorStore.create>[1] = {}): Promise<VectorStore> {
  const store = await VectorStore.create(vectors[0]!.length, options);
  vectors.forEach((v, i) => store.upsert(`v${i}`, v));
  return store;
}

function recallAt10(store: VectorStore, queries: Float32Array[], filter?: (id: string) => boolean): number {
  let found = 0;
  let total = 0;
  for (const q of queries) {
    const truth = new Set(store.exact(q, 10, filter).map((h) => h.id));
    total += truth.size;
    for (const hit of store.search(q, 10, filter)) if (truth.has(hit.id)) found++;
  }
  return found / total;
}

async function expectIoError(promise: Promise<unknown>, pattern: RegExp): Promise<void> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(CairnError);
  expect((error as CairnError).code).toBe("IO");
  expect((error as CairnError).message).toMatch(pattern);
}

const DIMS = 32;
const data = randomVectors(3000, DIMS, 1);
const queries = randomVectors(100, DIMS, 2);

describe("VectorStore search", () => {
  it("finds the exact top 10 with recall >= 0.98 and never returns removed ids", async () => {
    const store = await storeOf(data, { exactBelow: 0 });
    const removed = new Set<string>();
    for (let i = 0; i < data.length; i += 10) {
      store.remove(`v${i}`);
      removed.add(`v${i}`);
    }
    expect(store.size).toBe(data.length - removed.size);
    expect(store.has("v0")).toBe(false);
    expect(store.get("v0")).toBeUndefined();
    expect(recallAt10(store, queries)).toBeGreaterThanOrEqual(0.98);
    for (const q of queries) {
      const hits = store.search(q, 10);
      expect(hits).toHaveLength(10);
      expect(hits.some((h) => removed.has(h.id))).toBe(false);
      for (let i = 1; i < hits.length; i++) expect(hits[i - 1]!.similarity).toBeGreaterThanOrEqual(hits[i]!.similarity);
    }
  });

  it("returns the stored vector's own id first with similarity 1, whatever its scale", async () => {
    const store = await storeOf(data.slice(0, 500));
    const scaled = data[42]!.map((x) => x * 7.5);
    const [top] = store.search(scaled, 1);
    expect(top?.id).toBe("v42");
    expect(top?.similarity).toBeCloseTo(1, 5);
  });

  it("scans exactly at or below exactBelow, so small stores give exact results", async () => {
    const store = await storeOf(data.slice(0, 1000), { exactBelow: 1000 });
    for (const q of queries.slice(0, 20)) expect(store.search(q, 10)).toEqual(store.exact(q, 10));
  });

  it("replaces the vector of an existing id and keeps one live copy", async () => {
    const store = await storeOf(data.slice(0, 200), { exactBelow: 0 });
    store.upsert("v5", data[2000]!);
    expect(store.size).toBe(200);
    expect(Array.from(store.get("v5")!)).toEqual(Array.from(data[2000]!));
    const hits = store.search(data[2000]!, 3);
    expect(hits[0]).toMatchObject({ id: "v5" });
    expect(hits.filter((h) => h.id === "v5")).toHaveLength(1);
    expect(store.search(data[5]!, 1)[0]?.id).not.toBe("v5");
    expect(store.deletedRatio).toBeCloseTo(1 / 201, 10);
    store.upsert("v5", data[2000]!); // the same vector again: a no-op
    expect(store.deletedRatio).toBeCloseTo(1 / 201, 10);
  });

  it("filters by over-fetching the graph when many ids pass and by scanning when few do", async () => {
    const store = await storeOf(data, { exactBelow: 100 });
    const even = (id: string) => Number(id.slice(1)) % 2 === 0;
    const rare = (id: string) => Number(id.slice(1)) % 97 === 0; // 31 ids: scanned exactly
    expect(recallAt10(store, queries, even)).toBeGreaterThanOrEqual(0.98);
    for (const q of queries.slice(0, 20)) {
      expect(store.search(q, 10, even).every((h) => even(h.id))).toBe(true);
      expect(store.search(q, 10, rare)).toEqual(store.exact(q, 10, rare));
    }
    expect(store.search(queries[0]!, 100, rare)).toHaveLength(31);
    expect(store.search(queries[0]!, 10, () => false)).toEqual([]);
  });

  it("falls back to an exact scan when the over-fetched neighbours hold too few passing ids", async () => {
    const store = await storeOf(data, { exactBelow: 100 });
    const q = queries[5]!;
    // Half the ids pass, but only the half least similar to the query: none is among its neighbours.
    const far = new Set(store.exact(q, data.length).slice(data.length / 2).map((h) => h.id));
    const hits = store.search(q, 10, (id) => far.has(id));
    expect(hits).toEqual(store.exact(q, 10, (id) => far.has(id)));
    expect(hits).toHaveLength(10);
  });

  it("breaks similarity ties by id, whatever the insertion order", async () => {
    const store = await VectorStore.create(DIMS, { exactBelow: 0 });
    data.slice(0, 300).forEach((v, i) => store.upsert(`v${i}`, v));
    for (const id of ["dup-c", "dup-a", "dup-b"]) store.upsert(id, data[2500]!);
    expect(store.search(data[2500]!, 2).map((h) => h.id)).toEqual(["dup-a", "dup-b"]);
    expect(store.exact(data[2500]!, 3).map((h) => h.id)).toEqual(["dup-a", "dup-b", "dup-c"]);
  });

  it("rejects vectors of the wrong size, non-finite or all-zero, and handles k edge cases", async () => {
    const store = await storeOf(data.slice(0, 5));
    expect(() => store.upsert("x", new Float32Array(DIMS + 1))).toThrow(/expected a vector of 32 dimensions/);
    expect(() => store.upsert("x", new Float32Array(DIMS))).toThrow(/non-zero/);
    expect(() => store.search(new Float32Array(DIMS).fill(Number.NaN), 1)).toThrow(/finite/);
    expect(store.search(data[0]!, 0)).toEqual([]);
    expect(store.search(data[0]!, 50)).toHaveLength(5);
    const empty = await VectorStore.create(DIMS);
    expect(empty.search(data[0]!, 10)).toEqual([]);
    expect(empty.deletedRatio).toBe(0);
    store.remove("unknown");
    expect(store.size).toBe(5);
  });
});

describe("VectorStore growth and compaction", () => {
  it("grows past its initial capacity", async () => {
    const store = await storeOf(data.slice(0, 300), { capacity: 8, exactBelow: 0 });
    expect(store.size).toBe(300);
    expect(store.ids()).toHaveLength(300);
    for (const i of [0, 7, 8, 150, 299]) {
      expect(store.search(data[i]!, 1)[0]?.id).toBe(`v${i}`);
      expect(Array.from(store.get(`v${i}`)!)).toEqual(Array.from(data[i]!));
    }
  });

  it("compaction drops deleted labels and keeps the same results", async () => {
    const store = await storeOf(data, { exactBelow: 0 });
    for (let i = 0; i < 1500; i++) store.remove(`v${i}`);
    for (let i = 1500; i < 2000; i++) store.upsert(`v${i}`, data[i - 1500]!);
    expect(store.deletedRatio).toBeGreaterThan(0.5);
    const before = queries.map((q) => store.exact(q, 10));
    const ids = store.ids();
    await store.compact();
    expect(store.deletedRatio).toBe(0);
    expect(store.size).toBe(1500);
    expect(store.ids()).toEqual(ids);
    expect(queries.map((q) => store.exact(q, 10))).toEqual(before);
    expect(recallAt10(store, queries)).toBeGreaterThanOrEqual(0.98);
    store.upsert("after", data[2999]!);
    expect(store.search(data[2999]!, 1)[0]?.id).toBe("after");
  });
});

describe("VectorStore persistence", () => {
  it("round-trips through save and load with identical results", async () => {
    const dir = await testdir();
    const store = await storeOf(data, { exactBelow: 0, efSearch: 80 });
    store.remove("v1");
    store.upsert("v2", data[2999]!);
    await store.save(dir);
    const loaded = await VectorStore.load(dir);
    expect(loaded.dims).toBe(DIMS);
    expect(loaded.size).toBe(store.size);
    expect(loaded.deletedRatio).toBe(store.deletedRatio);
    expect(loaded.ids()).toEqual(store.ids());
    expect(Array.from(loaded.get("v2")!)).toEqual(Array.from(store.get("v2")!));
    for (const q of queries) expect(loaded.search(q, 10)).toEqual(store.search(q, 10));
    expect(loaded.efSearch).toBe(80);
    const scanning = await VectorStore.load(dir, { exactBelow: 5000 });
    expect(scanning.search(queries[0]!, 10)).toEqual(store.exact(queries[0]!, 10));
    loaded.upsert("new", queries[0]!);
    expect(loaded.search(queries[0]!, 1)[0]?.id).toBe("new");
  });

  it("is deterministic: the same inputs give the same results and the same files", async () => {
    const [a, b] = await Promise.all([storeOf(data.slice(0, 1000), { exactBelow: 0 }), storeOf(data.slice(0, 1000), { exactBelow: 0 })]);
    for (const q of queries) expect(a.search(q, 10)).toEqual(b.search(q, 10));
    const [dirA, dirB] = [await testdir(), await testdir()];
    await a.save(dirA);
    await b.save(dirB);
    const digest = async (dir: string) => {
      const manifest = JSON.parse(await readFile(path.join(dir, MANIFEST_FILE), "utf8")) as { index: { sha256: string }; vectors: { sha256: string } };
      return [manifest.index.sha256, manifest.vectors.sha256];
    };
    expect(await digest(dirA)).toEqual(await digest(dirB));
  });

  it("saves the state at the time of the call even if the store changes while saving", async () => {
    const dir = await testdir();
    const store = await storeOf(data.slice(0, 1500), { capacity: 1500 });
    const first = store.save(dir);
    store.upsert("during", data[2000]!); // forces growth of the graph mid-save
    store.remove("v3");
    await first;
    const saved = await VectorStore.load(dir);
    expect(saved.size).toBe(1500);
    expect(saved.has("during")).toBe(false);
    expect(saved.has("v3")).toBe(true);
    await Promise.all([store.save(dir), store.save(dir)]);
    const latest = await VectorStore.load(dir);
    expect(latest.ids()).toEqual(store.ids());
  });

  it("reports a missing index as CairnError IO", async () => {
    const dir = await testdir();
    await expectIoError(VectorStore.load(dir), /no vector index at .*vectors\.json; rebuild/);
  });

  it.each([
    ["a truncated graph file", "hnsw", "truncate", /truncated/],
    ["a truncated vectors file", "f32", "truncate", /truncated/],
    ["a flipped byte in the graph file", "hnsw", "flip", /checksum/],
    ["a flipped byte in the vectors file", "f32", "flip", /checksum/],
    ["a missing graph file", "hnsw", "delete", /could not read/],
  ] as const)("detects %s on load", async (_name, ext, damage, pattern) => {
    const dir = await testdir();
    await (await storeOf(data.slice(0, 500))).save(dir);
    const file = path.join(dir, (await readdir(dir)).find((n) => n.endsWith(`.${ext}`))!);
    if (damage === "truncate") await truncate(file, (await stat(file)).size - 7);
    else if (damage === "delete") await rm(file);
    else {
      const bytes = await readFile(file);
      const at = bytes.length >> 1;
      bytes[at] = bytes[at]! ^ 0xff;
      await writeFile(file, bytes);
    }
    await expectIoError(VectorStore.load(dir), pattern);
  });

  it.each([
    ["not JSON", "{ \"format\": \"cairn-vec", /not valid JSON/],
    ["an unknown version", null, /format version 99, expected 1/],
    ["a wrong shape", "{\"format\":\"cairn-vectors\"}", /unexpected shape/],
  ] as const)("detects a manifest that is %s", async (_name, text, pattern) => {
    const dir = await testdir();
    await (await storeOf(data.slice(0, 50))).save(dir);
    const file = path.join(dir, MANIFEST_FILE);
    const replacement = text ?? JSON.stringify({ ...JSON.parse(await readFile(file, "utf8")), version: 99 });
    await writeFile(file, replacement);
    await expectIoError(VectorStore.load(dir), pattern);
  });

  it("ignores leftovers of a crashed save, and the next save removes them", async () => {
    const dir = await testdir();
    const old = await storeOf(data.slice(0, 300));
    await old.save(dir);
    // A crash between writing data files and swapping the manifest leaves these behind.
    const leftovers = ["vectors-zz-deadbeef.hnsw", "vectors-zz-deadbeef.f32.tmp-1-00", `${MANIFEST_FILE}.tmp-1-00`];
    for (const name of leftovers) await writeFile(path.join(dir, name), "partial");
    const loaded = await VectorStore.load(dir);
    expect(loaded.ids()).toEqual(old.ids());
    const aged = new Date(Date.now() - 3_600_000);
    for (const name of leftovers) await utimes(path.join(dir, name), aged, aged);
    loaded.upsert("extra", data[400]!);
    await loaded.save(dir);
    loaded.upsert("extra2", data[401]!);
    await loaded.save(dir);
    const names = (await readdir(dir)).sort();
    expect(names.some((n) => leftovers.includes(n))).toBe(false);
    // The current and the previous generation are kept for readers that just read the old manifest.
    expect(names.filter((n) => n.endsWith(".hnsw"))).toHaveLength(2);
    expect((await VectorStore.load(dir)).size).toBe(302);
  });

  it("leaves a loadable index when the saving process is killed midway", async () => {
    const dir = await testdir();
    const child = path.join(dir, "saver.mts");
    const module = path.join(REPO, "src/indexing/vectors.ts");
    await writeFile(
      child,
      `import { VectorStore } from ${JSON.stringify(module)};
const dir = ${JSON.stringify(path.join(dir, "index"))};
const store = await VectorStore.load(dir);
for (let round = 0; ; round++) {
  const v = new Float32Array(store.dims).map((_, i) => Math.sin(i + round));
  store.upsert("round-" + round, v);
  await store.save(dir);
  process.stdout.write("saved " + round + "\\n");
}
`,
    );
    const indexDir = path.join(dir, "index");
    const base = await storeOf(randomVectors(4000, 128, 3));
    await base.save(indexDir);
    for (const delayMs of [5, 30]) {
      const proc = spawn(process.execPath, ["--import", "tsx", child], { cwd: REPO, stdio: ["ignore", "pipe", "inherit"] });
      await new Promise<void>((resolve) => {
        proc.stdout.once("data", () => setTimeout(() => resolve(), delayMs));
      });
      proc.kill("SIGKILL");
      await new Promise((resolve) => proc.once("exit", resolve));
      const loaded = await VectorStore.load(indexDir);
      expect(loaded.size).toBeGreaterThan(4000);
      expect(loaded.search(base.get("v7")!, 1)[0]?.id).toBe("v7");
      expect(loaded.has("round-0")).toBe(true);
    }
  });
});

describe("hits", () => {
  it("carry the same similarity, in [-1, 1], whether found by the graph or by the exact scan", async () => {
    const store = await storeOf(data.slice(0, 2500), { exactBelow: 0 });
    for (const q of queries.slice(0, 10)) {
      const exact = new Map(store.exact(q, 50).map((h) => [h.id, h.similarity]));
      for (const hit of store.search(q, 10)) {
        expect(hit.similarity).toBeGreaterThanOrEqual(-1);
        expect(hit.similarity).toBeLessThanOrEqual(1);
        if (exact.has(hit.id)) expect(hit.similarity).toBe(exact.get(hit.id));
      }
    }
  });
});
