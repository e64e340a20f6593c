/**
 * Embedding providers behind the `Embedder` interface. Creating one is cheap: the model runtime
 * (TF.js for use-lite, transformers.js for transformers) is imported on the first `embed()`.
 */
import type { EmbedderConfig } from "../../config.js";
import type { Embedder } from "../embedder.js";
import { TransformersEmbedder } from "./transformers.js";
import { UseLiteEmbedder } from "./use-lite.js";

export { EmbedderUnavailableError, isEmbedderUnavailable } from "./errors.js";
export { MODEL_DIR_ENV, resolveModelDir, type ModelLocation } from "./model-dir.js";
export { TransformersEmbedder, type TransformersConfig, type TransformersOptions } from "./transformers.js";
export { USE_LITE_BATCH, USE_LITE_DIMS, USE_LITE_MAX_CHARS, USE_LITE_MAX_TOKENS, UseLiteEmbedder, type UseLiteOptions } from "./use-lite.js";

export type CreateEmbedderOptions = {
  /** Project root that a transformers model `path` (or `CAIRN_MODEL_DIR`) resolves against. Default `process.cwd()`. */
  root?: string;
  /** Environment read for `CAIRN_MODEL_DIR`. Default `process.env`. */
  env?: NodeJS.ProcessEnv;
};

/**
 * The embedder for `config`, or null for provider `none` (lexical-only retrieval). Never loads a
 * model: a model that cannot be loaded surfaces as `EmbedderUnavailableError` from `embed()`.
 */
export function createEmbedder(config: EmbedderConfig, options: CreateEmbedderOptions = {}): Embedder | null {
  switch (config.provider) {
    case "none":
      return null;
    case "use-lite":
      return new UseLiteEmbedder();
    case "transformers":
      return new TransformersEmbedder(config, options);
  }
}

/**
 * `embedder` if its vector size is known, else (a transformers model directory without
 * config.json, typically a wrong `path`) the result of trying to load it: on failure, null —
 * lexical-only retrieval — with the one warning to show, instead of an index that cannot be
 * created for vectors of 0 dimensions.
 */
export async function usableEmbedder(embedder: Embedder | null): Promise<{ embedder: Embedder | null; warning?: string }> {
  if (!embedder || embedder.dims > 0) return { embedder };
  try {
    await embedder.embed(["dimension probe"]);
  } catch (error) {
    return { embedder: null, warning: `embedding model unavailable (${(error as Error).message}); using lexical search only` };
  }
  return embedder.dims > 0 ? { embedder } : { embedder: null, warning: `embedding model ${embedder.id} reports 0 dimensions; using lexical search only` };
}
