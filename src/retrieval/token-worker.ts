/**
 * The token counter in a worker thread (see tokens.ts): loading gpt-tokenizer's o200k_base tables
 * takes ~0.13 s of a cold process's main thread, so the first inject starts it here, on another core,
 * while the main thread searches. Messages: `{ id, text }` in, `{ id, tokens }` or `{ id, error }` out.
 */
import { parentPort } from "node:worker_threads";
import { countBounded } from "./token-count.js";

const port = parentPort;
if (port) {
  const { countTokens } = await import("gpt-tokenizer/encoding/o200k_base");
  port.on("message", ({ id, text }: { id: number; text: string }) => {
    try {
      port.postMessage({ id, tokens: countBounded(text, countTokens) });
    } catch (error) {
      port.postMessage({ id, error: (error as Error).message });
    }
  });
  port.postMessage({ ready: true });
}
