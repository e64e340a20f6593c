// Model directory resolution, token limits, and the small helpers the providers share.
import path from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { isEmbedderUnavailable, EmbedderUnavailableError } from "../../../src/indexing/embedders/errors.js";
import { maxTokens, missingModelFiles, readModelConfig, resolveModelDir } from "../../../src/indexing/embedders/model-dir.js";
import { l2Normalize } from "../../../src/indexing/embedders/normalize.js";
import { TFJS_NOISE, withoutConsoleNoise } from "../../../src/indexing/embedders/quiet.js";
import { testdir } from "../../helpers/fixture.js";

describe("resolveModelDir", () => {
  const root = path.resolve("/project");

  test("config path wins over CAIRN_MODEL_DIR, which wins over .cairn/models/<model>", () => {
    const env = { CAIRN_MODEL_DIR: "/models/minilm" };
    expect(resolveModelDir("Xenova/all-MiniLM-L6-v2", "vendor/model", root, env)).toEqual({ dir: path.join(root, "vendor/model"), source: "config" });
    expect(resolveModelDir("Xenova/all-MiniLM-L6-v2", undefined, root, env)).toEqual({ dir: path.resolve("/models/minilm"), source: "env" });
    expect(resolveModelDir("Xenova/all-MiniLM-L6-v2", undefined, root, {})).toEqual({
      dir: path.join(root, ".cairn", "models", "Xenova", "all-MiniLM-L6-v2"),
      source: "default",
    });
  });

  test("relative env paths resolve against the root, absolute ones stay", () => {
    expect(resolveModelDir("m", undefined, root, { CAIRN_MODEL_DIR: "m1" }).dir).toBe(path.join(root, "m1"));
    expect(resolveModelDir("m", "/abs/m2", root, {}).dir).toBe(path.resolve("/abs/m2"));
  });
});

describe("model files", () => {
  test("lists what is missing for the chosen dtype and reads config.json sizes", async () => {
    const dir = await testdir({ "config.json": JSON.stringify({ hidden_size: 384, max_position_embeddings: 512, model_type: "bert" }), "onnx/model.onnx": "x" });
    expect(missingModelFiles(dir, "fp32")).toEqual(["tokenizer.json", "tokenizer_config.json"]);
    expect(missingModelFiles(dir, "q8")).toEqual(["tokenizer.json", "tokenizer_config.json", "onnx/model_quantized.onnx"]);
    expect(readModelConfig(dir)).toEqual({ hiddenSize: 384, maxPositions: 512, modelType: "bert" });
    expect(readModelConfig(path.join(dir, "nope"))).toEqual({});
  });

  test("maxTokens clamps absurd tokenizer limits to the position table", () => {
    expect(maxTokens(1e30, { maxPositions: 512, modelType: "bert" })).toBe(512);
    expect(maxTokens(undefined, { maxPositions: 514, modelType: "xlm-roberta" })).toBe(512);
    expect(maxTokens(256, { maxPositions: 512 })).toBe(256);
    expect(maxTokens(256, {})).toBe(256);
    expect(maxTokens(undefined, {})).toBeUndefined();
  });
});

describe("helpers", () => {
  test("l2Normalize scales to unit length and refuses zero or NaN vectors", () => {
    expect(Array.from(l2Normalize(new Float32Array([3, 4])))).toEqual([0.6000000238418579, 0.800000011920929]);
    expect(() => l2Normalize(new Float32Array([0, 0]), "vector of x")).toThrow(/vector of x has norm 0/);
    expect(() => l2Normalize(new Float32Array([NaN, 1]))).toThrow(/norm NaN/);
  });

  test("EmbedderUnavailableError is recognisable and keeps its cause", () => {
    const cause = new Error("boom");
    const error = new EmbedderUnavailableError("use-lite", "IO", "cannot load", { cause });
    expect(isEmbedderUnavailable(error)).toBe(true);
    expect(isEmbedderUnavailable(new Error("x"))).toBe(false);
    expect(error.cause).toBe(cause);
  });
});

describe("withoutConsoleNoise", () => {
  const originalWarn = console.warn;
  afterEach(() => {
    console.warn = originalWarn;
  });

  test("drops only TF.js noise while running and restores the console after", async () => {
    const seen: string[] = [];
    const capture = (...args: unknown[]) => void seen.push(args.join(" "));
    console.warn = capture;
    await withoutConsoleNoise(TFJS_NOISE, async () => {
      console.warn("\n====\nHi, looks like you are running TensorFlow.js in Node.js. To speed things up…\n====");
      console.warn("The kernel 'Abs' for backend 'wasm' is already registered");
      console.warn("a real warning");
    });
    console.warn("The kernel 'Abs' for backend 'wasm' is already registered");
    expect(seen).toEqual(["a real warning", "The kernel 'Abs' for backend 'wasm' is already registered"]);
    expect(console.warn).toBe(capture);
  });

  test("restores the console when the work throws", async () => {
    const before = console.log;
    await expect(withoutConsoleNoise(TFJS_NOISE, () => Promise.reject(new Error("load failed")))).rejects.toThrow("load failed");
    expect(console.log).toBe(before);
  });
});
