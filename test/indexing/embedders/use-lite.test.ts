// The bundled Universal Sentence Encoder lite, with the real model from node_modules.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createEmbedder, USE_LITE_MAX_CHARS, UseLiteEmbedder } from "../../../src/indexing/embedders/index.js";

const embedder = new UseLiteEmbedder();

beforeAll(() => embedder.load());
afterAll(() => embedder.close());

function cosine(a: Float32Array, b: Float32Array): number {
  let dot = 0;
  for (let i = 0; i < a.length; i++) dot += a[i]! * b[i]!;
  return dot;
}

function norm(v: Float32Array): number {
  return Math.sqrt(cosine(v, v));
}

describe("use-lite", () => {
  test("is the default provider, 512 dims, versioned by the model package", () => {
    const created = createEmbedder({ provider: "use-lite" });
    expect(created).toBeInstanceOf(UseLiteEmbedder);
    expect(created?.dims).toBe(512);
    expect(created?.id).toMatch(/^use-lite@\d+\.\d+\.\d+$/);
    expect(createEmbedder({ provider: "none" })).toBeNull();
  });

  test("a batch of 50 gives 50 finite unit vectors of 512 dims, in input order", async () => {
    const texts = Array.from({ length: 50 }, (_, i) => `finding ${i}: ${"retry loop without backoff ".repeat((i % 4) + 1)}`);
    const vectors = await embedder.embed(texts);
    expect(vectors).toHaveLength(50);
    for (const v of vectors) {
      expect(v).toBeInstanceOf(Float32Array);
      expect(v).toHaveLength(512);
      expect(v.every(Number.isFinite)).toBe(true);
      expect(norm(v)).toBeCloseTo(1, 5);
    }
    // Sorting by length for batching must not scramble the output order.
    const [alone] = await embedder.embed([texts[37]!]);
    expect(cosine(alone!, vectors[37]!)).toBeCloseTo(1, 5);
  });

  test("paraphrases score higher than unrelated texts", async () => {
    const [ctx, ignored, cancel, middleware, typo, fixTypo, sql, injection] = await embedder.embed([
      "check ctx.Err() after upstream calls",
      "context cancellation errors are ignored after calling upstream services",
      "context cancellation errors swallowed in middleware",
      "middleware ignores context cancellation errors from upstream calls",
      "README typo",
      "Fix a typo in the README",
      "user input concatenated into SQL query string",
      "SQL injection through unescaped request parameters",
    ]);
    expect(cosine(ctx!, ignored!)).toBeGreaterThan(cosine(ctx!, typo!));
    expect(cosine(cancel!, middleware!)).toBeGreaterThan(cosine(cancel!, typo!));
    expect(cosine(typo!, fixTypo!)).toBeGreaterThan(cosine(typo!, ctx!));
    expect(cosine(sql!, injection!)).toBeGreaterThan(cosine(sql!, typo!));
    expect(cosine(sql!, injection!)).toBeGreaterThan(cosine(sql!, cancel!));
    // Known weakness, kept visible: USE does not link code identifiers to their meaning, so
    // "check ctx.Err() after upstream calls" is no closer to "context cancellation errors swallowed
    // in middleware" (0.33) than to "README typo" (0.35). Lexical search covers identifiers.
  });

  test("is deterministic across calls and batch compositions", async () => {
    const texts = ["lock not released on the error path", "mutex held across await", "unbounded channel grows without limit"];
    const first = await embedder.embed(texts);
    const second = await embedder.embed([...texts].reverse());
    expect(Array.from(second[2]!)).toEqual(Array.from(first[0]!));
    expect(Array.from(second[0]!)).toEqual(Array.from(first[2]!));
  });

  test("empty and whitespace-only texts get a fixed unit vector; no texts give none", async () => {
    const [empty, spaces, again] = await embedder.embed(["", "   ", ""]);
    expect(norm(empty!)).toBeCloseTo(1, 5);
    expect(norm(spaces!)).toBeCloseTo(1, 5);
    expect(Array.from(again!)).toEqual(Array.from(empty!));
    expect(await embedder.embed([])).toEqual([]);
  });

  test("long texts are truncated, not fatal: only the first tokens count", async () => {
    const head = "Handlers must check ctx.Err() after every upstream call, or cancelled requests keep running. ".repeat(12);
    const huge = head + "x".repeat(200_000) + "😀".repeat(5_000);
    const [long, other, clipped] = await embedder.embed([huge, head + "completely different tail ".repeat(500), huge.slice(0, USE_LITE_MAX_CHARS)]);
    expect(norm(long!)).toBeCloseTo(1, 5);
    expect(cosine(long!, other!)).toBeCloseTo(1, 5);
    expect(cosine(long!, clipped!)).toBeCloseTo(1, 5);
  });

  test("concurrent calls are each answered in order", async () => {
    const [a, b] = await Promise.all([embedder.embed(["race on shared map"]), embedder.embed(["race on shared map", "typo"])]);
    expect(cosine(a[0]!, b[0]!)).toBeCloseTo(1, 5);
    expect(b).toHaveLength(2);
  });
});
