/** The error an embedding provider throws when its model cannot be loaded or run. */
import { CairnError, type CairnErrorCode } from "../../errors.js";

/**
 * The embedding model is unavailable: retrieval catches this to fall back to lexical-only search
 * with one warning. Code `CONFIG` when the configuration points at something missing or invalid
 * (fix the config or the model directory), `IO` when an installed model failed to load or run.
 */
export class EmbedderUnavailableError extends CairnError {
  /** Provider that failed, e.g. `use-lite` or `transformers`. */
  readonly provider: string;
  constructor(provider: string, code: Extract<CairnErrorCode, "CONFIG" | "IO">, message: string, options?: { cause?: unknown }) {
    super(code, message, options);
    this.name = "EmbedderUnavailableError";
    this.provider = provider;
  }
}

export function isEmbedderUnavailable(error: unknown): error is EmbedderUnavailableError {
  return error instanceof EmbedderUnavailableError;
}

/** The message of an unknown thrown value, for wrapping it in a clearer error. */
export function reason(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
