/** Where a transformers.js model lives on disk, and what is missing from it. */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";

/** Environment variable naming the local model directory when the config gives no `path`. */
export const MODEL_DIR_ENV = "CAIRN_MODEL_DIR";
/** Where models live when neither `path` nor the env var is set (and where `allowRemote` downloads to). */
export const DEFAULT_MODELS_DIR = path.join(".cairn", "models");

export type ModelDtype = "fp32" | "q8";

export type ModelLocation = {
  /** Absolute model directory (holds config.json, tokenizer.json, onnx/). */
  dir: string;
  /** What chose it: the config's `path`, the env var, or the default under `.cairn/models/<model>`. */
  source: "config" | "env" | "default";
};

/** The config's `path` wins, then `CAIRN_MODEL_DIR`, then `.cairn/models/<model>`; relative paths resolve against root. */
export function resolveModelDir(model: string, configPath: string | undefined, root: string, env: NodeJS.ProcessEnv = process.env): ModelLocation {
  if (configPath) return { dir: path.resolve(root, configPath), source: "config" };
  const fromEnv = env[MODEL_DIR_ENV];
  if (fromEnv) return { dir: path.resolve(root, fromEnv), source: "env" };
  return { dir: path.resolve(root, DEFAULT_MODELS_DIR, model), source: "default" };
}

/** The ONNX file transformers.js loads for a dtype, relative to the model directory. */
export function onnxFile(dtype: ModelDtype): string {
  return dtype === "q8" ? "onnx/model_quantized.onnx" : "onnx/model.onnx";
}

/** Files the feature-extraction pipeline needs that `dir` lacks (relative paths; empty when complete). */
export function missingModelFiles(dir: string, dtype: ModelDtype): string[] {
  return ["config.json", "tokenizer.json", "tokenizer_config.json", onnxFile(dtype)].filter((file) => !existsSync(path.join(dir, file)));
}

export type ModelConfig = { hiddenSize?: number; maxPositions?: number; modelType?: string };

/** The few config.json fields cairn needs; empty when the file is missing or unreadable. */
export function readModelConfig(dir: string): ModelConfig {
  try {
    const raw = JSON.parse(readFileSync(path.join(dir, "config.json"), "utf8")) as Record<string, unknown>;
    const int = (v: unknown) => (typeof v === "number" && Number.isInteger(v) && v > 0 ? v : undefined);
    const config: ModelConfig = {};
    const hiddenSize = int(raw.hidden_size) ?? int(raw.d_model) ?? int(raw.dim);
    const maxPositions = int(raw.max_position_embeddings);
    if (hiddenSize) config.hiddenSize = hiddenSize;
    if (maxPositions) config.maxPositions = maxPositions;
    if (typeof raw.model_type === "string") config.modelType = raw.model_type;
    return config;
  } catch {
    return {};
  }
}

/**
 * Longest input the model accepts in tokens: the tokenizer's `model_max_length` unless it is missing
 * or larger than the position table (some configs say 1e30). RoBERTa-style models reserve 2 positions.
 */
export function maxTokens(tokenizerMax: number | undefined, config: ModelConfig): number | undefined {
  const offset = config.modelType && /roberta|camembert/.test(config.modelType) ? 2 : 0;
  const positions = config.maxPositions ? config.maxPositions - offset : undefined;
  if (tokenizerMax && Number.isFinite(tokenizerMax) && (!positions || tokenizerMax <= positions)) return tokenizerMax;
  return positions;
}
