/** Latency helpers shared by the index and lifecycle benches: warm queries and edit → searchable via the watcher. */
import { readFile, writeFile } from "node:fs/promises";
import { performance } from "node:perf_hooks";
import type { KnowledgeBase } from "../../src/index.js";
import type { Embedder } from "../../src/indexing/embedder.js";
import { hybridSearch } from "../../src/retrieval/search.js";
import { summarize, type Summary } from "./stats.js";

export type QueryLatency = {
  /** `kb.search()` as callers see it (query embedding and the once-a-second refresh included). */
  search: Summary;
  /** `hybridSearch()` on the already open index: no refresh from the files. */
  engine: Summary;
  /** The bare query embedding (`embedder.embed([query])`), when an embedder was given. */
  embed?: Summary;
  /** Mean number of results per query (a latency over empty results would mean little). */
  meanResults: number;
  /** Search mode of the last query. */
  mode: "hybrid" | "lexical";
};

/** Time every query once (after 3 warm-up queries), interleaving the variants so load drift hits them alike. */
export async function measureQueries(kb: KnowledgeBase, queries: readonly string[], embedder?: Embedder): Promise<QueryLatency> {
  for (const q of queries.slice(0, 3)) await kb.search(q);
  const search: number[] = [];
  const engine: number[] = [];
  const embed: number[] = [];
  let results = 0;
  let mode: QueryLatency["mode"] = "hybrid";
  for (const q of queries) {
    let t0 = performance.now();
    const response = await kb.search(q);
    search.push(performance.now() - t0);
    results += response.results.length;
    mode = response.mode;
    const { index } = await kb.searchIndex();
    t0 = performance.now();
    await hybridSearch(index, q);
    engine.push(performance.now() - t0);
    if (embedder) {
      t0 = performance.now();
      await embedder.embed([q]);
      embed.push(performance.now() - t0);
    }
  }
  return { search: summarize(search), engine: summarize(engine), ...(embedder ? { embed: summarize(embed) } : {}), meanResults: results / queries.length, mode };
}

export type WatchLatency = {
  /** Milliseconds from the start of each file write until `kb.search()` returned the edited entry at rank 1. */
  samples: number[];
  summary: Summary;
  /** Duration of the watcher's refreshes, save included (from its `updated` events). */
  refresh: Summary;
  /** Edits that were not searchable within the timeout, with the top result seen instead. */
  misses: Array<{ id: string; top: string | undefined }>;
};

/** Distinct findings (different subjects and made-up words) so that no edit competes with an earlier one. */
const EDIT_TEXTS = [
  "The quillwort exporter drops trailing rows when its buffer flushes during shutdown.",
  "Marzipan tokens in the billing ledger are rounded twice before they reach the invoice total.",
  "The zephyrine scheduler starves low-priority jobs whenever a burst of retries arrives.",
  "Glockenspiel headers are copied into outgoing webhooks, leaking the tenant routing hint.",
  "The obsidian cache never expires thumbnails after the source image is replaced.",
  "Periwinkle migrations lock the accounts table while backfilling a nullable column.",
  "The saffron parser accepts duplicate keys and silently keeps the last value.",
  "Tamarind sessions survive a password change because the revocation list is read lazily.",
  "The cobalt rate limiter counts requests per process instead of per client address.",
  "Juniper feature flags evaluate to the default when the remote config times out.",
  "The vermilion importer decodes CSV files as Latin-1 and mangles accented names.",
  "Basalt queue consumers acknowledge messages before the handler commits its transaction.",
];

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Start `kb.watch()`, then `edits` times: rewrite one entry's finding with a distinct new text, wait
 * for the watcher's refresh that updates that entry, and search for the text until the entry is the
 * top result. The search runs once the watcher reports (polling with searches would steal the single
 * thread, and the model, from the refresh being measured).
 */
export async function measureWatchEdits(kb: KnowledgeBase, entries: ReadonlyArray<{ id: string; path: string }>, edits: number, timeoutMs = 10_000): Promise<WatchLatency> {
  const refresh: number[] = [];
  let waiter: { id: string; resolve: () => void } | undefined;
  const handle = await kb.watch({
    onEvent: (e) => {
      if (e.type !== "updated") return;
      refresh.push(e.ms);
      if (waiter && (e.report.updated.includes(waiter.id) || e.report.added.includes(waiter.id))) waiter.resolve();
    },
  });
  const samples: number[] = [];
  const misses: WatchLatency["misses"] = [];
  try {
    await handle.ready;
    for (let k = 0; k < edits; k++) {
      const target = entries[(k * 97 + 13) % entries.length]!;
      const original = await readFile(target.path, "utf8");
      const lines = original.split("\n");
      const finding = `${EDIT_TEXTS[k % EDIT_TEXTS.length]} Edit ${k}.`;
      lines[lines.indexOf("---", 1) + 1] = finding;
      const updated = new Promise<void>((resolve) => (waiter = { id: target.id, resolve }));
      const t0 = performance.now();
      await writeFile(target.path, lines.join("\n"));
      await Promise.race([updated, sleep(timeoutMs)]);
      let top: string | undefined;
      while (performance.now() - t0 < timeoutMs) {
        top = (await kb.search(finding, { limit: 3 })).results[0]?.id;
        if (top === target.id) break;
        await sleep(20);
      }
      if (top === target.id) samples.push(performance.now() - t0);
      else misses.push({ id: target.id, top });
      waiter = undefined;
      await sleep(100);
    }
  } finally {
    await handle.close();
  }
  return { samples, summary: summarize(samples), refresh: summarize(refresh), misses };
}
