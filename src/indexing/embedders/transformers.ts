/**
 * A transformers.js (ONNX) sentence-embedding model from a local directory: feature extraction,
 * mean or CLS pooling, L2-normalised. Offline unless the config sets `allowRemote: true`, which
 * downloads the model from the Hugging Face hub into `.cairn/models/<model>` on first use.
 * `@huggingface/transformers` is imported on the first `embed()`, never before.
 *
 * Truncation: the tokenizer truncates to the model's maximum length (clamped to its position
 * table); texts are first cut to 12 characters per allowed token so huge inputs tokenize quickly.
 */
import { existsSync } from "node:fs";
import path from "node:path";
import type { EmbedderConfig } from "../../config.js";
import type { Embedder } from "../embedder.js";
import { EmbedderUnavailableError, reason } from "./errors.js";
import { DEFAULT_MODELS_DIR, MODEL_DIR_ENV, maxTokens, missingModelFiles, type ModelDtype, type ModelLocation, onnxFile, readModelConfig, resolveModelDir } from "./model-dir.js";
import { l2Normalize } from "./normalize.js";

export type TransformersConfig = Extract<EmbedderConfig, { provider: "transformers" }>;

export type TransformersOptions = {
  /** Project root that relative model paths resolve against. Default `process.cwd()`. */
  root?: string;
  /** Environment read for `CAIRN_MODEL_DIR`. Default `process.env`. */
  env?: NodeJS.ProcessEnv;
  /** Texts per model call. Default 32. */
  batchSize?: number;
};

/** Characters kept per allowed token before tokenizing (a WordPiece/BPE token rarely spans more). */
const CHARS_PER_TOKEN = 12;
const DEFAULT_BATCH = 32;
const SUGGESTED_MODEL = "Xenova/all-MiniLM-L6-v2";

type Pooling = "mean" | "cls";
type OutputTensor = { dims: number[]; data: ArrayLike<number> };
type Extractor = {
  (texts: string[], options: { pooling: Pooling; normalize: boolean }): Promise<OutputTensor>;
  tokenizer: { model_max_length?: number };
  dispose(): Promise<unknown>;
};
type Loaded = { extractor: Extractor; maxChars: number | undefined };

/** The optional peer dependency the `transformers` provider needs, and the range cairn is tested with. */
export const TRANSFORMERS_PACKAGE = "@huggingface/transformers";
export const TRANSFORMERS_RANGE = "^3.8.1";

/**
 * Import transformers.js. It is an optional peer dependency (its onnxruntime weighs ~300 MB), so a
 * missing package is a configuration problem with the install command in the message.
 * `specifier` exists for tests; default the real package.
 */
export async function importTransformers(specifier: string = TRANSFORMERS_PACKAGE): Promise<typeof import("@huggingface/transformers")> {
  try {
    return (await import(specifier)) as typeof import("@huggingface/transformers");
  } catch (cause) {
    const code = (cause as NodeJS.ErrnoException).code;
    if ((code === "ERR_MODULE_NOT_FOUND" || code === "MODULE_NOT_FOUND") && String((cause as Error).message).includes(specifier)) {
      throw new EmbedderUnavailableError(
        "transformers",
        "CONFIG",
        `The "transformers" embedder needs ${specifier}, an optional peer dependency that cairn does not install by itself (it brings onnxruntime, ~300 MB). ` +
          `Add it next to cairn: \`npm install ${specifier}@"${TRANSFORMERS_RANGE}"\` (in this checkout, or in the project that depends on cairn). ` +
          `Or set embedder.provider to "use-lite" (bundled, offline) in cairn.config.json.`,
        { cause },
      );
    }
    throw new EmbedderUnavailableError("transformers", "IO", `Cannot load ${specifier}: ${reason(cause)}. Reinstall it (npm install ${specifier}@"${TRANSFORMERS_RANGE}"), or set embedder.provider to "use-lite".`, { cause });
  }
}

export class TransformersEmbedder implements Embedder {
  readonly id: string;
  readonly model: string;
  readonly dtype: ModelDtype;
  readonly pooling: Pooling;
  readonly location: ModelLocation;
  readonly batchSize: number;
  readonly #root: string;
  readonly #allowRemote: boolean;
  #dims: number;
  #loading: Promise<Loaded> | undefined;

  constructor(config: TransformersConfig, options: TransformersOptions = {}) {
    this.model = config.model;
    this.dtype = config.quantized ? "q8" : "fp32";
    this.pooling = config.pooling ?? "mean";
    this.#allowRemote = config.allowRemote ?? false;
    this.#root = path.resolve(options.root ?? process.cwd());
    this.location = resolveModelDir(config.model, config.path, this.#root, options.env);
    this.batchSize = Math.max(1, Math.floor(options.batchSize ?? DEFAULT_BATCH));
    this.id = `transformers:${config.model}:${this.dtype}:${this.pooling}`;
    this.#dims = readModelConfig(this.location.dir).hiddenSize ?? 0;
  }

  /** Vector size: config.json's `hidden_size` until the first embed, then the model's actual output width (0 if unknown). */
  get dims(): number {
    return this.#dims;
  }

  /** Load the model now rather than on the first `embed()`. */
  async load(): Promise<void> {
    await this.#load();
  }

  async embed(texts: string[]): Promise<Float32Array[]> {
    if (texts.length === 0) return [];
    const { extractor, maxChars } = await this.#load();
    const clipped = maxChars ? texts.map((t) => (t.length > maxChars ? t.slice(0, maxChars) : t)) : texts;
    // Similar lengths batched together pad less.
    const order = clipped.map((_, i) => i).sort((a, b) => clipped[a]!.length - clipped[b]!.length || a - b);
    const out: Float32Array[] = new Array<Float32Array>(texts.length);
    for (let i = 0; i < order.length; i += this.batchSize) {
      const slice = order.slice(i, i + this.batchSize);
      let result: OutputTensor;
      try {
        result = await extractor(slice.map((j) => clipped[j]!), { pooling: this.pooling, normalize: true });
      } catch (cause) {
        throw new EmbedderUnavailableError("transformers", "IO", `Embedding with ${this.model} (${this.location.dir}) failed: ${reason(cause)}`, { cause });
      }
      const [rows, width] = result.dims;
      if (result.dims.length !== 2 || rows !== slice.length || !width) {
        throw new EmbedderUnavailableError("transformers", "IO", `${this.model} returned output of shape [${result.dims.join(", ")}], expected [${slice.length}, dims]: is it a feature-extraction (sentence-embedding) model?`);
      }
      this.#dims = width;
      const data = Float32Array.from(result.data);
      for (const [k, j] of slice.entries()) out[j] = l2Normalize(data.slice(k * width, (k + 1) * width), `${this.model} embedding of text ${j}`);
    }
    return out;
  }

  async close(): Promise<void> {
    const loading = this.#loading;
    this.#loading = undefined;
    const loaded = await loading?.catch(() => undefined);
    await loaded?.extractor.dispose();
  }

  #load(): Promise<Loaded> {
    this.#loading ??= this.#loadModel().catch((error: unknown) => {
      this.#loading = undefined;
      throw error;
    });
    return this.#loading;
  }

  async #loadModel(): Promise<Loaded> {
    const dir = this.location.dir;
    const missing = missingModelFiles(dir, this.dtype);
    const local = missing.length === 0;
    if (!local && !this.#allowRemote) throw new EmbedderUnavailableError("transformers", "CONFIG", this.#missingMessage(missing));
    const { env, pipeline } = await importTransformers();
    // transformers.js settings are process-wide; set them for this load.
    env.allowLocalModels = local;
    env.allowRemoteModels = !local && this.#allowRemote;
    env.useFSCache = !local; // a local directory is read in place, never copied into the cache
    env.cacheDir = path.join(this.#root, DEFAULT_MODELS_DIR);
    let extractor: Extractor;
    try {
      extractor = (await pipeline("feature-extraction", local ? dir : this.model, {
        dtype: this.dtype,
        device: "cpu",
        local_files_only: local,
        session_options: { logSeverityLevel: 3 }, // onnxruntime: errors only, no graph-cleanup chatter
      })) as unknown as Extractor;
    } catch (cause) {
      const message = local
        ? `Cannot load the embedding model in ${dir}: ${reason(cause)}. Check that it is a complete transformers.js (ONNX) model directory, or set embedder.provider to "use-lite".`
        : `Cannot download the embedding model ${this.model} from the Hugging Face hub into ${env.cacheDir}: ${reason(cause)}. Check the network or put the model files in ${dir} yourself, or set embedder.provider to "use-lite".`;
      throw new EmbedderUnavailableError("transformers", "IO", message, { cause });
    }
    const config = readModelConfig(local ? dir : path.join(env.cacheDir, this.model));
    const limit = maxTokens(extractor.tokenizer.model_max_length, config);
    if (limit) extractor.tokenizer.model_max_length = limit;
    if (config.hiddenSize && !this.#dims) this.#dims = config.hiddenSize;
    return { extractor, maxChars: limit ? limit * CHARS_PER_TOKEN : undefined };
  }

  #missingMessage(missing: string[]): string {
    const dir = this.location.dir;
    const chosenBy = {
      config: "set by embedder.path",
      env: `set by $${MODEL_DIR_ENV}`,
      default: `the default location; set embedder.path or $${MODEL_DIR_ENV} to use another`,
    }[this.location.source];
    const other: ModelDtype = this.dtype === "q8" ? "fp32" : "q8";
    const problem = existsSync(dir) ? `does not contain ${missing.join(", ")}` : "does not exist";
    const hint =
      missing.length === 1 && missing[0] === onnxFile(this.dtype) && missingModelFiles(dir, other).length === 0
        ? ` It does have ${onnxFile(other)}: set embedder.quantized to ${other === "q8"}.`
        : "";
    const example = this.model.includes("/") ? this.model : SUGGESTED_MODEL;
    return (
      `Embedding model ${this.model} not found: model directory ${dir} (${chosenBy}) ${problem}.${hint} ` +
      `Download a sentence-embedding model there, e.g. ${example}: ` +
      `\`git clone https://huggingface.co/${example} ${dir}\` (needs git-lfs) or ` +
      `\`huggingface-cli download ${example} --local-dir ${dir}\`; ` +
      `or set embedder.allowRemote to true to download it on first use; ` +
      `or set embedder.provider to "use-lite" (bundled, offline).`
    );
  }
}
