/** The embedding cache is sealed to its directory; an older cairn's unsealed cache is kept (re-embedding 100k entries takes minutes). */
import { readdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { EmbeddingCache } from "../../src/indexing/embedding-cache.js";
import { testdir } from "../helpers/fixture.js";

const HASH = "ab".repeat(32);

describe("embedding cache", () => {
  it("keeps an unsealed cache git does not track, seals it at the next flush, and drops one sealed elsewhere", async () => {
    const dir = path.join(await testdir(), "embeddings");
    const first = await EmbeddingCache.open(dir, "m", 2);
    first.set(HASH, Float32Array.from([0.6, 0.8]));
    await first.flush();
    expect((await readdir(dir)).sort()).toEqual(["m.2.bin", "m.2.bin.seal"]);
    expect(Array.from((await EmbeddingCache.open(dir, "m", 2)).get(HASH) ?? [])).toEqual([Float32Array.from([0.6])[0], Float32Array.from([0.8])[0]]);
    // An older cairn wrote no seal: its vectors are kept, and sealed by the next flush.
    const { rm } = await import("node:fs/promises");
    await rm(path.join(dir, "m.2.bin.seal"));
    const legacy = await EmbeddingCache.open(dir, "m", 2);
    expect(legacy.get(HASH)).toBeDefined();
    await legacy.flush();
    expect((await readdir(dir)).sort()).toEqual(["m.2.bin", "m.2.bin.seal"]);
    // A seal of another directory (a copy, a commit): not read.
    await writeFile(path.join(dir, "m.2.bin.seal"), "0123456789abcdef");
    expect((await EmbeddingCache.open(dir, "m", 2)).get(HASH)).toBeUndefined();
  });
});
