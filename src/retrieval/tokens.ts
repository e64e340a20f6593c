/**
 * Token counts of injected text with a real tokenizer: gpt-tokenizer's `o200k_base` encoding (the
 * one OpenAI's GPT-4o, GPT-4.1, GPT-5 and o-series models use), loaded once per process.
 *
 * Loading the encoding's tables costs ~0.5 s of CPU (compiling its 2.4 MB module, then building the
 * encoder): counted in this thread, a cold `cairn inject` at 10k entries that picks entries took 1.8 s
 * instead of 1.3 s. The first inject therefore starts it in a worker thread (token-worker.ts) before it
 * searches, and counts there: the tables load on the other core while this one works. Where no worker can start (a
 * bundler that drops the worker file, a sandbox without threads) the tables load in this thread.
 * Long runs without spaces are counted in slices (token-count.ts).
 */
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import { countBounded } from "./token-count.js";

export const TOKENIZER = "o200k_base";

export type TokenCounter = (text: string) => Promise<number>;

let loading: Promise<TokenCounter> | undefined;
/** Keeps the worker referenced while someone waits on it (see inWorker). */
let holdWorker: (<T>(wait: Promise<T>) => Promise<T>) | undefined;

/** The counter, started once per process: call it early (it only starts the load) and await it when counting. */
export function tokenCounter(): Promise<TokenCounter> {
  loading ??= inWorker().catch(inThisThread);
  // Never an unhandled rejection for a caller that only starts the load.
  loading.catch(() => undefined);
  return holdWorker ? holdWorker(loading) : loading;
}

/** Start loading the counter in a worker, if one can start, so it is ready by the time an inject counts; else do nothing yet (an inject that picks nothing loads no tokenizer). */
export function prepareTokenCounter(): void {
  if (workerFile()) loading ??= inWorker().catch(inThisThread);
  loading?.catch(() => undefined);
}

function workerFile(): URL | undefined {
  // The compiled worker sits next to this file (dist/retrieval/); run from sources (tests) there is none.
  const file = new URL("./token-worker.js", import.meta.url);
  return file.protocol === "file:" && existsSync(fileURLToPath(file)) ? file : undefined;
}

async function inThisThread(): Promise<TokenCounter> {
  const { countTokens } = await import("gpt-tokenizer/encoding/o200k_base");
  return async (text) => countBounded(text, countTokens);
}

type Reply = { ready?: true; id?: number; tokens?: number; error?: string };

async function inWorker(): Promise<TokenCounter> {
  const file = workerFile();
  if (!file) throw new Error("no token worker file");
  // In an async function: a worker that cannot start (ERR_WORKER_INIT_FAILED) rejects, and the tables load here instead.
  const worker = new Worker(file);
  // A worker nobody waits on must not keep the process alive (a CLI exits when its work is done); one that
  // is waited on must, or a process with nothing else to do would exit before the answer arrives.
  let waiting = 0;
  const hold = async <T>(wait: Promise<T>): Promise<T> => {
    if (waiting++ === 0) worker.ref();
    try {
      return await wait;
    } finally {
      if (--waiting === 0) worker.unref();
    }
  };
  holdWorker = hold;
  return new Promise((resolve, reject) => {
    const pending = new Map<number, { text: string; resolve: (n: number) => void; reject: (e: Error) => void }>();
    let next = 0;
    let ready = false;
    let fallback: Promise<TokenCounter> | undefined;
    const counter: TokenCounter = (text) => {
      if (fallback) return fallback.then((count) => count(text));
      return hold(
        new Promise<number>((res, rej) => {
          const id = next++;
          pending.set(id, { text, resolve: res, reject: rej });
          worker.postMessage({ id, text });
        }),
      );
    };
    const fail = (error: Error) => {
      holdWorker = undefined;
      if (!ready) return reject(error);
      // The worker died after it was ready: what it still owed is counted here, and so is everything after.
      const counting = (fallback ??= inThisThread());
      for (const [id, p] of pending) {
        pending.delete(id);
        counting.then((count) => count(p.text)).then(p.resolve, p.reject);
      }
    };
    worker.on("message", (reply: Reply) => {
      if (reply.ready) {
        ready = true;
        return resolve(counter);
      }
      const p = reply.id === undefined ? undefined : pending.get(reply.id);
      if (!p) return;
      pending.delete(reply.id!);
      if (reply.error !== undefined) p.reject(new Error(`token count failed: ${reply.error}`));
      else p.resolve(reply.tokens!);
    });
    worker.on("error", fail);
    worker.on("exit", (code) => fail(new Error(`the token counter's worker exited (code ${code})`)));
    // After the listeners: adding a message listener references the worker again.
    worker.unref();
  });
}
