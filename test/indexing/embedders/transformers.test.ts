// The transformers.js provider, offline, with the generated random-weight tiny BERT fixture
// (test/fixtures/tiny-bert: hidden size 32, 128 positions; see scripts/make-test-model.sh).
import { cp, rm, writeFile } from "node:fs/promises";
import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, test } from "vitest";
import type { EmbedderConfig } from "../../../src/config.js";
import { CairnError } from "../../../src/errors.js";
import { createEmbedder, EmbedderUnavailableError, TransformersEmbedder } from "../../../src/indexing/embedders/index.js";
import { testdir } from "../../helpers/fixture.js";

const FIXTURE = fileURLToPath(new URL("../../fixtures/tiny-bert", import.meta.url));
const HIDDEN = 32;

/** A temp project root with the fixture copied to `models/tiny-bert`. */
async function project(): Promise<string> {
  const root = await testdir();
  await cp(FIXTURE, path.join(root, "models", "tiny-bert"), { recursive: true });
  return root;
}

function transformers(extra: Partial<Extract<EmbedderConfig, { provider: "transformers" }>> = {}) {
  return { provider: "transformers", model: "test/tiny-bert", path: "models/tiny-bert", ...extra } as const;
}

const dot = (a: Float32Array, b: Float32Array) => a.reduce((sum, x, i) => sum + x * b[i]!, 0);

/** Error thrown by `promise`, failing the test if it resolves. */
async function rejection(promise: Promise<unknown>): Promise<EmbedderUnavailableError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(EmbedderUnavailableError);
  return error as EmbedderUnavailableError;
}

describe("transformers provider", () => {
  test("loads offline from a directory relative to root: dims, unit norm, determinism", async () => {
    const root = await project();
    const embedder = createEmbedder(transformers(), { root }) as TransformersEmbedder;
    expect(embedder.id).toBe("transformers:test/tiny-bert:fp32:mean");
    expect(embedder.dims).toBe(HIDDEN); // from config.json, before loading
    expect(embedder.location).toEqual({ dir: path.join(root, "models", "tiny-bert"), source: "config" });
    try {
      const texts = ["check ctx.Err() after upstream calls", "README typo", "", "lock held across await"];
      const first = await embedder.embed(texts);
      expect(first).toHaveLength(4);
      for (const v of first) {
        expect(v).toHaveLength(HIDDEN);
        expect(Math.sqrt(dot(v, v))).toBeCloseTo(1, 5);
      }
      expect(embedder.dims).toBe(HIDDEN);
      const again = await embedder.embed([texts[3]!, texts[0]!]);
      expect(dot(again[0]!, first[3]!)).toBeCloseTo(1, 5);
      expect(dot(again[1]!, first[0]!)).toBeCloseTo(1, 5);
      expect(dot(first[0]!, first[1]!)).toBeLessThan(0.9999); // different texts, different vectors
      const { env } = await import("@huggingface/transformers");
      expect(env.allowRemoteModels).toBe(false);
      expect(existsSync(path.join(root, ".cairn"))).toBe(false); // read in place, nothing cached
    } finally {
      await embedder.close();
    }
  });

  test("quantized (q8) and fp32 both load and roughly agree", async () => {
    const root = await project();
    const fp32 = createEmbedder(transformers(), { root })!;
    const q8 = createEmbedder(transformers({ quantized: true }), { root })!;
    expect(q8.id).toBe("transformers:test/tiny-bert:q8:mean");
    try {
      const text = ["retry loop without backoff hammers the upstream"];
      const [a] = await fp32.embed(text);
      const [b] = await q8.embed(text);
      expect(b).toHaveLength(HIDDEN);
      expect(Math.sqrt(dot(b!, b!))).toBeCloseTo(1, 5);
      expect(dot(a!, b!)).toBeGreaterThan(0.9);
      expect(Array.from(a!)).not.toEqual(Array.from(b!));
    } finally {
      await fp32.close?.();
      await q8.close?.();
    }
  });

  test("cls pooling differs from mean pooling and is recorded in the id", async () => {
    const root = await project();
    const cls = createEmbedder(transformers({ pooling: "cls" }), { root })!;
    const mean = createEmbedder(transformers(), { root })!;
    expect(cls.id).toBe("transformers:test/tiny-bert:fp32:cls");
    try {
      const [a] = await cls.embed(["mutex held across await"]);
      const [b] = await mean.embed(["mutex held across await"]);
      expect(Math.sqrt(dot(a!, a!))).toBeCloseTo(1, 5);
      expect(dot(a!, b!)).toBeLessThan(0.9999);
    } finally {
      await cls.close?.();
      await mean.close?.();
    }
  });

  test("long texts are truncated to the model's 128 positions instead of crashing", async () => {
    const root = await project();
    const embedder = createEmbedder(transformers(), { root })!;
    try {
      const head = "the handler must check the context error after every upstream call . ".repeat(20);
      const [a, b] = await embedder.embed([head + "first tail ".repeat(5_000), head + "other ending entirely ".repeat(50)]);
      expect(dot(a!, b!)).toBeCloseTo(1, 5); // only the first 128 tokens count, and they are equal
    } finally {
      await embedder.close?.();
    }
  });

  test("CAIRN_MODEL_DIR names the model directory when the config has no path", async () => {
    const root = await project();
    const embedder = createEmbedder({ provider: "transformers", model: "test/tiny-bert" }, { root, env: { CAIRN_MODEL_DIR: "models/tiny-bert" } }) as TransformersEmbedder;
    expect(embedder.location).toEqual({ dir: path.join(root, "models", "tiny-bert"), source: "env" });
    try {
      const [v] = await embedder.embed(["hello"]);
      expect(v).toHaveLength(HIDDEN);
    } finally {
      await embedder.close();
    }
  });

  test("a missing model directory fails with what to do", async () => {
    const root = await testdir();
    const embedder = createEmbedder({ provider: "transformers", model: "Xenova/all-MiniLM-L6-v2" }, { root, env: {} })!;
    expect(embedder.dims).toBe(0); // unknown until a model is there
    const error = await rejection(embedder.embed(["x"]));
    expect(error).toBeInstanceOf(CairnError);
    expect(error.code).toBe("CONFIG");
    expect(error.provider).toBe("transformers");
    const dir = path.join(root, ".cairn", "models", "Xenova", "all-MiniLM-L6-v2");
    expect(error.message).toContain(`model directory ${dir}`);
    expect(error.message).toContain("does not exist");
    expect(error.message).toContain("huggingface.co/Xenova/all-MiniLM-L6-v2");
    expect(error.message).toContain('embedder.provider to "use-lite"');
    expect(error.message).toContain("embedder.allowRemote");
  });

  test("a directory without the chosen ONNX file names it and suggests the other dtype", async () => {
    const root = await project();
    await rm(path.join(root, "models", "tiny-bert", "onnx", "model_quantized.onnx"));
    const error = await rejection(createEmbedder(transformers({ quantized: true }), { root })!.embed(["x"]));
    expect(error.message).toContain("does not contain onnx/model_quantized.onnx");
    expect(error.message).toContain("set embedder.quantized to false");
  });

  test("an unreadable model file is an IO error, not a crash", async () => {
    const root = await project();
    const onnx = path.join(root, "models", "tiny-bert", "onnx", "model.onnx");
    await writeFile(onnx, "not an ONNX graph");
    const error = await rejection(createEmbedder(transformers(), { root })!.embed(["x"]));
    expect(error.code).toBe("IO");
    expect(error.message).toContain(`Cannot load the embedding model in ${path.join(root, "models", "tiny-bert")}`);
  });
});
